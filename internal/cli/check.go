package cli

import (
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vulnbench/vulnbench/internal/lineerr"
)

// Check parses args (without the program name) as Run would, and runs nothing: a word that
// names no command, a flag the command does not have, a flag's value of the wrong type or the
// wrong number of arguments is its error. The documentation's test checks every documented
// command line with it.
func Check(args []string) error {
	root := newRoot(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, reading: &lineerr.Reading{}})
	if err := knownCommand(root, args); err != nil {
		return err
	}
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(rest); errors.Is(err, pflag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// Flags maps each flag of every command (--name, without the dashes) to the commands that
// have it.
func Flags() map[string][]string {
	out := map[string][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		c.Flags().VisitAll(func(f *pflag.Flag) { out[f.Name] = append(out[f.Name], c.CommandPath()) })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { out[f.Name] = append(out[f.Name], c.CommandPath()) })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, reading: &lineerr.Reading{}}))
	return out
}
