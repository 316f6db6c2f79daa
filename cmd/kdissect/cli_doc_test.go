package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliDocPath is the CLI reference as users read it.
const cliDocPath = "../../docs/cli.md"

// cliDocFlag matches a flag row of docs/cli.md: "| `-c, --count N` | ...".
var cliDocFlag = regexp.MustCompile("^\\| `(?:-([A-Za-z0-9]), )?--([a-z0-9-]+)[^`]*` \\|")

// cliDoc reads docs/cli.md's flag tables: for each "## kdissect NAME"
// section, the flags its rows name, long name → shorthand ("" for none).
func cliDoc(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]map[string]string{}
	cmd := ""
	for _, line := range strings.Split(string(b), "\n") {
		if name, ok := strings.CutPrefix(line, "## kdissect "); ok {
			cmd = strings.TrimSpace(name)
			doc[cmd] = map[string]string{}
			continue
		}
		if strings.HasPrefix(line, "## ") {
			cmd = ""
			continue
		}
		if cmd == "" {
			continue
		}
		if m := cliDocFlag.FindStringSubmatch(line); m != nil {
			if _, dup := doc[cmd][m[2]]; dup {
				t.Errorf("%s: kdissect %s: --%s has two rows", cliDocPath, cmd, m[2])
			}
			doc[cmd][m[2]] = m[1]
		}
	}
	return doc
}

// userCommands returns the commands a user can run, by name.
func userCommands(root *cobra.Command) map[string]*cobra.Command {
	cmds := map[string]*cobra.Command{}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" {
			cmds[c.Name()] = c
		}
	}
	return cmds
}

// TestCLIDocumented holds docs/cli.md to the commands and flags the CLI
// defines: every command has its section, every flag (but help) its row
// with the same shorthand, and every row names a flag that exists.
func TestCLIDocumented(t *testing.T) {
	doc := cliDoc(t)
	cmds := userCommands(newRootCmd())
	if len(cmds) < 10 {
		t.Fatalf("only %d commands found", len(cmds))
	}
	for name, c := range cmds {
		rows, ok := doc[name]
		if !ok {
			t.Errorf("%s: no section \"## kdissect %s\"", cliDocPath, name)
			continue
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			short, ok := rows[f.Name]
			switch {
			case !ok:
				t.Errorf("%s: kdissect %s: flag --%s (%s) has no row", cliDocPath, name, f.Name, f.Usage)
			case short != f.Shorthand:
				t.Errorf("%s: kdissect %s: --%s documented with shorthand %q, the CLI has %q", cliDocPath, name, f.Name, short, f.Shorthand)
			}
		})
		for long := range rows {
			if f := c.Flags().Lookup(long); f == nil || f.Hidden {
				t.Errorf("%s: kdissect %s: row for --%s, which the command does not have", cliDocPath, name, long)
			}
		}
	}
	for name := range doc {
		if _, ok := cmds[name]; !ok {
			t.Errorf("%s: section for kdissect %s, which is not a command", cliDocPath, name)
		}
	}
}
