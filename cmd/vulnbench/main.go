// Command vulnbench builds vulnerability-detection benchmarks, runs subjects on them, and scores
// the verdicts. See README.md.
package main

import (
	"context"
	"os"

	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/sandbox"
)

func main() {
	// Inside a sandbox, vulnbench re-executed as `vulnbench sandbox-forward ...` serves the model
	// gateway on the sandbox's loopback (internal/sandbox); not a command of the CLI.
	if code, ok := sandbox.ForwardMain(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
