package main

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/output/render"
)

func newAPIsCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "apis",
		Short: "List every API key with the versions the codec decodes and encodes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			apis := codec.APIs()
			switch format {
			case "json":
				w := codec.NewJSONWriter(nil)
				w.BeginArray()
				for _, a := range apis {
					w.BeginObject()
					w.Key("api_key")
					w.Int(int64(a.Key))
					w.Key("api")
					w.String(a.Name)
					w.Key("min_version")
					w.Int(int64(a.MinVersion))
					w.Key("max_version")
					w.Int(int64(a.MaxVersion))
					w.Key("flexible_from")
					if a.FlexibleFrom >= 0 {
						w.Int(int64(a.FlexibleFrom))
					} else {
						w.Null()
					}
					w.EndObject()
				}
				w.EndArray()
				if _, err := fmt.Fprintf(cmd.OutOrStdout(), "%s\n", w.Bytes()); err != nil {
					return inputError{fmt.Errorf("write output: %w", err)}
				}
				return nil
			case "table", "summary":
				out := render.NewStickyWriter(cmd.OutOrStdout()) // tablewriter drops write errors
				t := tablewriter.NewTable(out, tablewriter.WithHeaderAutoFormat(tw.Off))
				t.Header([]string{"key", "api", "versions", "flexible from"})
				for _, a := range apis {
					flex := "-"
					if a.FlexibleFrom >= 0 {
						flex = "v" + strconv.Itoa(int(a.FlexibleFrom))
					}
					t.Append([]string{strconv.Itoa(int(a.Key)), a.Name, fmt.Sprintf("v%d-v%d", a.MinVersion, a.MaxVersion), flex})
				}
				if err := cmp.Or(t.Render(), out.Err()); err != nil {
					return inputError{fmt.Errorf("write output: %w", err)}
				}
				return nil
			default:
				return fmt.Errorf("unknown format %q (want table or json)", format)
			}
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table or json")
	return cmd
}
