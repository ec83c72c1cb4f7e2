// Command llmserver serves internal/llmtest's fake OpenAI-compatible API on loopback for
// bench/llm.sh: it prints the base URL, answers every request after --latency, and exits when
// its standard input closes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vulnbench/vulnbench/internal/llmtest"
)

func main() {
	latency := flag.Duration("latency", 0, "time before each answer")
	flag.Parse()
	srv := llmtest.NewOpenAI(func(r llmtest.Request) llmtest.Reply {
		vul := strings.Contains(r.Prompt(), "strcpy")
		return llmtest.Reply{Text: fmt.Sprintf(`{"vulnerable": %v, "cwe": "CWE-787", "confidence": 0.7, "reason": "bench"}`, vul),
			Latency: *latency, InputTokens: 900, OutputTokens: 40}
	})
	defer srv.Close()
	fmt.Println(srv.BaseURL())
	io.Copy(io.Discard, os.Stdin) // until the script closes our input
	fmt.Fprintf(os.Stderr, "llmserver: %d requests served\n", srv.Requests())
}
