// Command llmserver serves internal/llmtest's fake model provider on loopback, for the bench
// scripts and for trying every path of vulnbench offline: it prints the base URL (for
// --base-url, or OPENAI_BASE_URL / ANTHROPIC_BASE_URL), answers every request after --latency
// with llmtest.Answers (each vulnbench task in its own format, by a fixed rule), and exits when
// its standard input closes. --dialect picks the wire format: openai (Chat Completions and the
// Responses API, which codex speaks) or anthropic (Messages); --batch serves the provider's
// batch API too (OpenAI's Batch API, Anthropic's Message Batches), each batch ending after
// --batch-polls retrievals. --addr fixes its address (default: a free loopback port); --forever
// serves until SIGINT or SIGTERM instead of until standard input closes (for a shell's
// background job, whose standard input is closed). With a command after the flags (llmserver
// [flags] -- COMMAND ARGS), it serves while the command runs, with OPENAI_BASE_URL (or
// ANTHROPIC_BASE_URL) in its environment, a key if none is set, and exits with its status. It can fault a reproducible share of
// requests (--p429 with Retry-After: 0, --p500) and enforce a rate limit (--rpm, 429 with
// Retry-After over it, x-ratelimit-* headers on every answer); on exit it writes what it counted
// to --counts: one line per second since it started, "second accepted refused" (by the rate
// limit), and prints the totals on standard error. With --tools it plays an agent's model: on
// its turns 0, 1, ... it calls the listed tools in order (native tool calls), each with the
// function the prompt asks about ({"function": NAME}, NAME from the prompt's first `NAME`
// after "function"), and then answers as usual. With --record FILE it writes the body of every
// chat request it answered, one compact JSON document a line, for bench/bareclient to replay.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/vulnbench/vulnbench/internal/llmtest"
)

func main() {
	latency := flag.Duration("latency", 0, "time before each answer, faults included")
	p429 := flag.Float64("p429", 0, "share of requests answered 429 with Retry-After: 0")
	p500 := flag.Float64("p500", 0, "share of requests answered 500")
	seed := flag.Int64("seed", 1, "seed that picks the faulted requests")
	rpm := flag.Int("rpm", 0, "requests accepted per minute (0: no limit)")
	fixed := flag.Bool("fixed-window", false, "with --rpm: fixed one-minute windows instead of a sliding window")
	counts := flag.String("counts", "", "file to write the per-second counts to on exit")
	record := flag.String("record", "", "file to write every chat request's body to, one a line")
	tools := flag.String("tools", "", "comma-separated tools to call, one per turn, on the prompt's target function before answering (e.g. get_callers,get_callees,get_definition)")
	dialect := flag.String("dialect", "openai", "wire format: openai (Chat Completions and Responses) or anthropic (Messages)")
	batch := flag.Bool("batch", false, "serve the provider's batch API too")
	batchPolls := flag.Int("batch-polls", 1, "with --batch: retrievals that see a batch in progress before it ends")
	addr := flag.String("addr", "", "address to listen on, e.g. 127.0.0.1:8000 (default: a free loopback port)")
	forever := flag.Bool("forever", false, "serve until SIGINT or SIGTERM, not until standard input closes")
	flag.Parse()
	var script []string
	if *tools != "" {
		script = strings.Split(*tools, ",")
	}
	if *dialect != "openai" && *dialect != "anthropic" {
		fmt.Fprintf(os.Stderr, "llmserver: --dialect %q: want openai or anthropic\n", *dialect)
		os.Exit(2)
	}

	var faults429, faults500 atomic.Int64
	answers := llmtest.Answers(script...)
	ok := func(r llmtest.Request) llmtest.Reply {
		rep := answers(r)
		rep.Latency = *latency
		return rep
	}
	h := llmtest.Faults(*seed, ok,
		llmtest.Fault{P: *p429, Reply: llmtest.Reply{Status: 429, RetryNow: true, Latency: *latency}},
		llmtest.Fault{P: *p500, Reply: llmtest.Reply{Status: 500, Latency: *latency}})
	var (
		recMu  sync.Mutex
		recBuf bytes.Buffer
	)
	counted := func(r llmtest.Request) llmtest.Reply {
		if *record != "" {
			recMu.Lock()
			if err := json.Compact(&recBuf, r.Raw); err == nil {
				recBuf.WriteByte('\n')
			}
			recMu.Unlock()
		}
		rep := h(r)
		switch rep.Status {
		case 429:
			faults429.Add(1)
		case 500:
			faults500.Add(1)
		}
		return rep
	}
	opts := []llmtest.Option{llmtest.WithoutLog()}
	if *rpm > 0 {
		opts = append(opts, llmtest.WithRateLimit(llmtest.RateLimit{Requests: *rpm, Fixed: *fixed}))
	}
	if *batch {
		opts = append(opts, llmtest.WithBatches(llmtest.BatchOptions{Polls: *batchPolls}))
	}
	if *addr != "" {
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "llmserver:", err)
			os.Exit(1)
		}
		opts = append(opts, llmtest.WithListener(ln))
	}
	newServer := llmtest.NewOpenAI
	if *dialect == "anthropic" {
		newServer = llmtest.NewAnthropic
	}
	srv := newServer(counted, opts...)
	code := 0
	if args := flag.Args(); len(args) > 0 {
		code = runCommand(args, *dialect, srv.BaseURL())
	} else {
		fmt.Println(srv.BaseURL())
		serve(*forever)
	}
	srv.Close()
	var acc, ref int
	per := srv.RateCounts()
	for _, c := range per {
		acc, ref = acc+c.Accepted, ref+c.Refused
	}
	fmt.Fprintf(os.Stderr, "llmserver: %d requests served; faults: %d 429, %d 500; rate limit: %d accepted, %d refused\n",
		srv.Requests(), faults429.Load(), faults500.Load(), acc, ref)
	if *record != "" {
		recMu.Lock()
		err := os.WriteFile(*record, recBuf.Bytes(), 0o644)
		recMu.Unlock()
		if err != nil {
			fmt.Fprintln(os.Stderr, "llmserver:", err)
			os.Exit(1)
		}
	}
	if *counts != "" {
		f, err := os.Create(*counts)
		if err != nil {
			fmt.Fprintln(os.Stderr, "llmserver:", err)
			os.Exit(1)
		}
		w := bufio.NewWriter(f)
		for _, c := range per {
			fmt.Fprintf(w, "%d %d %d\n", c.Second, c.Accepted, c.Refused)
		}
		if err := w.Flush(); err != nil || f.Close() != nil {
			fmt.Fprintln(os.Stderr, "llmserver: writing", *counts, "failed")
			os.Exit(1)
		}
	}
	os.Exit(code)
}

// serve waits: until SIGINT or SIGTERM (forever), else until standard input closes.
func serve(forever bool) {
	if forever {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		return
	}
	io.Copy(io.Discard, os.Stdin) // until the script closes our input
}

// runCommand runs args with the provider's base URL (OPENAI_BASE_URL or ANTHROPIC_BASE_URL)
// pointing at the server and a key in its variable when none is set, and returns its exit code.
func runCommand(args []string, dialect, baseURL string) int {
	prefix := "OPENAI"
	if dialect == "anthropic" {
		prefix = "ANTHROPIC"
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), prefix+"_BASE_URL="+baseURL)
	if os.Getenv(prefix+"_API_KEY") == "" {
		cmd.Env = append(cmd.Env, prefix+"_API_KEY=llmserver")
	}
	signal.Ignore(os.Interrupt) // Ctrl-C reaches the command, which ends as it does
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		fmt.Fprintln(os.Stderr, "llmserver:", err)
		return 1
	}
	return 0
}
