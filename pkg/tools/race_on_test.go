//go:build race

package tools

// raceOn says the tests run under the race detector, which slows the
// regexp-bound reference searches twentyfold: the differential tests then
// and the property tests draw fewer cases.
const raceOn = true
