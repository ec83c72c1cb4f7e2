package cli_test

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/vulnbench/vulnbench/internal/cli"
	"github.com/vulnbench/vulnbench/internal/store/pgtest"
)

// withPostgres stops the tests' Postgres cluster (internal/store/pgtest) once every test ran.
type withPostgres struct{ m *testing.M }

func (w withPostgres) Run() int {
	code := w.m.Run()
	if err := pgtest.Stop(); err != nil && code == 0 {
		code = 1
	}
	return code
}

func TestMain(m *testing.M) {
	testscript.Main(withPostgres{m}, map[string]func(){
		"vulnbench": func() {
			os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the CLI scripts in testdata/script: each is a txtar archive of commands and
// the files they read.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "../../testdata/script",
		Setup: func(env *testscript.Env) error {
			// The demo suite, for scripts that run real subjects on it.
			b, err := os.ReadFile("../../suites/demo/demo.jsonl")
			if err != nil {
				return err
			}
			return os.WriteFile(env.WorkDir+"/demo.jsonl", b, 0o644)
		},
	})
}
