package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/internal/outfile"
)

// versionString says which build this is: the module version (a tagged
// release, or "(devel)" from a checkout) and the VCS revision, its time
// and whether the tree was modified, as the go command stamps them into
// the binary (debug.ReadBuildInfo); "(unknown)" in a binary without build
// information.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var b strings.Builder
	b.WriteString(v)
	if rev != "" {
		fmt.Fprintf(&b, " revision %s", rev)
		if modified {
			b.WriteString(" (modified)")
		}
		if at != "" {
			fmt.Fprintf(&b, " of %s", at)
		}
	}
	fmt.Fprintf(&b, ", %s", bi.GoVersion)
	return b.String()
}

// commandNames lists the commands a user can run.
func commandNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" && c.Name() != "completion" {
			names = append(names, c.Name())
		}
	}
	return names
}

// rootArgs refuses arguments to the bare command: an unknown command,
// with the commands it may be a typo of (cobra's suggestions, which its
// NoArgs does not give).
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q", args[0])
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	} else {
		msg += "; the commands are " + strings.Join(commandNames(cmd), ", ")
	}
	return fmt.Errorf("%s", msg)
}

// newManCmd writes a man page per command (cobra/doc).
func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man [DIR]",
		Short: "Write the man pages (kdissect.1, kdissect-read.1, ...) into DIR (default: the current directory)",
		Long: `man writes a troff man page for kdissect and each of its commands into DIR,
(made when it does not exist). Read one with man -l DIR/kdissect-read.1, or install them
into a MANPATH directory, e.g. /usr/local/share/man/man1.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return inputError{fmt.Errorf("man pages: %w", err)}
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // the pages do not change from one run to the next
			hdr := &doc.GenManHeader{Title: "KDISSECT", Section: "1", Source: "kdissect " + versionString(), Manual: "kdissect manual"}
			n, err := writeManTree(root, hdr, dir)
			if err != nil {
				return inputError{fmt.Errorf("write man pages: %w", err)}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "kdissect: %d man pages written to %s\n", n, dir)
			return nil
		},
	}
}

// writeManTree writes the page of cmd and of each of its commands into
// dir, named as doc.GenManTree names them (kdissect-read.1), and returns
// how many. Unlike GenManTree (os.Create) it never follows what is
// already in dir: a symbolic link, FIFO or device of a page's name is
// replaced by the page (outfile.Replace), which is written whole or not
// at all.
func writeManTree(cmd *cobra.Command, hdr *doc.GenManHeader, dir string) (int, error) {
	n := 0
	for _, c := range cmd.Commands() {
		if !c.IsAvailableCommand() || c.IsAdditionalHelpTopicCommand() {
			continue
		}
		m, err := writeManTree(c, hdr, dir)
		n += m
		if err != nil {
			return n, err
		}
	}
	name := filepath.Join(dir, strings.ReplaceAll(cmd.CommandPath(), " ", "-")+"."+hdr.Section)
	f, err := outfile.Create(name, outfile.Replace)
	if err != nil {
		return n, err
	}
	h := *hdr // GenMan fills in what it lacks
	if err := f.Finish(doc.GenMan(cmd, &h, f)); err != nil {
		return n, fmt.Errorf("%s: %w", name, err)
	}
	return n + 1, nil
}

// completeFlagValues registers the completion of flag values shared by
// several commands, by flag name: --format, --api and -i.
func completeFlagValues(root *cobra.Command) {
	apiNames := func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, a := range codec.APIs() {
			if strings.HasPrefix(strings.ToLower(a.Name), strings.ToLower(prefix)) {
				out = append(out, a.Name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	ifaces := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		out := []string{"any"}
		if is, err := net.Interfaces(); err == nil {
			for _, i := range is {
				out = append(out, i.Name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("format"); f != nil {
			vals := formatValues(f.Usage)
			c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return vals, cobra.ShellCompDirectiveNoFileComp
			})
		}
		if c.Flags().Lookup("api") != nil {
			c.RegisterFlagCompletionFunc("api", apiNames)
		}
		if c.Flags().Lookup("interface") != nil {
			c.RegisterFlagCompletionFunc("interface", ifaces)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// formatValues takes the values a --format flag's usage names: the words
// after "format:" (or "output:") up to the end, each word before a
// comma, "or", or a parenthesis.
func formatValues(usage string) []string {
	_, rest, ok := strings.Cut(usage, ":")
	if !ok {
		return nil
	}
	var out []string
	depth := 0
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ',' }) {
		switch {
		case strings.HasPrefix(w, "("):
			depth++
		}
		if depth == 0 && w != "or" && w != "and" {
			out = append(out, w)
		}
		if strings.HasSuffix(w, ")") && depth > 0 {
			depth--
		}
	}
	return out
}

// addReadFlag gives a command that reads captures tcpdump's and tshark's
// -r FILE: repeatable, the same as naming the file (before the files
// named as arguments), and a capture is needed one way or the other.
func addReadFlag(cmd *cobra.Command) {
	var files []string
	cmd.Flags().StringArrayVarP(&files, "read-file", "r", nil, "read this capture file, as tcpdump -r and tshark -r do (repeatable; the same as naming it)")
	run := cmd.RunE
	cmd.Args = func(_ *cobra.Command, args []string) error {
		if len(args)+len(files) == 0 {
			return fmt.Errorf("a capture is needed: FILE..., -r FILE, or - for standard input")
		}
		return nil
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return run(c, append(slices.Clone(files), args...))
	}
}
