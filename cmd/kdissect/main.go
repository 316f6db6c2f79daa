// Command kdissect decodes Apache Kafka wire protocol traffic from packet
// captures: see `kdissect help` and the project README.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses (DESIGN.md).
const (
	exitOK    = 0
	exitInput = 1 // the input could not be read
	exitUsage = 2 // bad usage
)

// inputError marks a failure to read the input, which exits with status 1.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	if err := root.Execute(); err != nil {
		printError(stderr, err)
		var ie inputError
		if errors.As(err, &ie) {
			return exitInput
		}
		var es interface{ ExitStatus() int } // replay's status 3
		if errors.As(err, &es) {
			return es.ExitStatus()
		}
		return exitUsage
	}
	return exitOK
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "kdissect",
		Short:         "Decode Apache Kafka wire protocol traffic from packet captures",
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          rootArgs,
		// Without a command there is nothing to do: show the commands, and
		// fail as bad usage does.
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(cmd.ErrOrStderr())
			cmd.Help()
			return fmt.Errorf("a command is needed: one of %s", strings.Join(commandNames(cmd), ", "))
		},
	}
	root.SetVersionTemplate("kdissect {{.Version}}\n")
	root.SuggestionsMinimumDistance = 2
	root.AddCommand(newReadCmd(), newDecodeCmd(), newAPIsCmd(), newLiveCmd())
	root.AddCommand(newBrokerCmd(nil), newProduceCmd(nil), newConsumeCmd(nil))
	root.AddCommand(newStatsCmd())
	root.AddCommand(newReportCmd())
	root.AddCommand(newReplayCmd(nil))
	root.AddCommand(newManCmd())
	completeFlagValues(root)
	return root
}
