// Command floorpost is the floor a resumed gopi run is measured against
// (scripts/benchresume): a bare program that reads a request body from a
// file, posts it to a model server's Anthropic Messages endpoint with the
// headers gopi sends, and reads the streamed answer to its end. It does
// nothing a resume could skip, so its cost is the least a run that sends
// that body can cost.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
)

func main() {
	url := flag.String("url", "", "the server's base URL (as scripts/fakeserver prints it)")
	file := flag.String("body", "", "the request body to post")
	flag.Parse()
	if *url == "" || *file == "" {
		log.Fatal("usage: floorpost -url URL -body FILE")
	}
	body, err := os.ReadFile(*file)
	if err != nil {
		log.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, *url+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("accept", "text/event-stream")
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("x-api-key", os.Getenv("ANTHROPIC_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		log.Fatalf("status %s", resp.Status)
	}
	fmt.Printf("%d bytes sent, %d received\n", len(body), n)
}
