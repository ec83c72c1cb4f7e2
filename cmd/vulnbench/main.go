// Command vulnbench builds vulnerability-detection benchmarks, runs subjects on them, and scores
// the verdicts. See README.md.
package main

import (
	"context"
	"os"

	"github.com/vulnbench/vulnbench/internal/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
