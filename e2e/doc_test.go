// Package e2e holds gopi's end-to-end tests: the testscript harness that
// runs testdata/script/*.txtar and testdata/fleet/*.txtar through the real
// binary, and the tests that drive it on a pseudo-terminal or as a
// subprocess. It is tests only: nothing imports it.
//
// The test binary doubles as gopi (TestMain hands testscript cmd.Main),
// and as gopi-nolandlock and gopi-mcp-server. Each script gets its own
// home folders and an in-process fake provider that speaks the Anthropic
// and OpenAI streaming wire formats (fakeprovider_test.go,
// fakeresponses_test.go, fakeollama_test.go), and the commands of
// scriptCmds (scriptcmds_test.go and the files they name): background
// processes and signals, JSON checks, rpc and ACP drivers, comparisons
// with pi 1.6's own output (picompare_test.go, pievents_test.go,
// rpcpi_test.go, rpcclient_test.go, acp_pi_test.go), gopi acp's
// conformance cases spoken by a client of our own (acp_conformance_test.go,
// acpclient_test.go), an OTLP receiver and
// the OpenTelemetry Collector, an MCP server of its own, the fleet's
// image and action.
//
// Guarantees: a script sees nothing of the real home (HOME and GOPI_HOME
// are its own folders); every reply a script queues on the fake provider
// is requested, or the script fails; `go test ./e2e -update` rewrites the
// expected output in testdata/script.
package e2e
