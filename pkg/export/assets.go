package export

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"sync"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed style.css
	styleCSS string
	//go:embed script.js
	scriptJS string
)

// pageTemplate is parsed on the first export, not when the program
// starts: most runs of the binary export nothing.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
})

// assets returns the page's one style sheet and one script, and the
// Content-Security-Policy that lets exactly these run: nothing is
// fetched, no other script or style applies (not even one smuggled into
// the page), and images come only from data: URLs.
func assets() (template.CSS, template.JS, string) {
	csp := "default-src 'none'; img-src data:; style-src '" + hash(styleCSS) + "'; script-src '" + hash(scriptJS) +
		"'; base-uri 'none'; form-action 'none'"
	return template.CSS(styleCSS), template.JS(scriptJS), csp
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}
