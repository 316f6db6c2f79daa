package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/output/kcat"
)

// BrokerOptions are broker's flags and streams.
type BrokerOptions struct {
	IO       cmdIO
	bf       brokerFlags
	topics   []string
	format   string
	envelope bool
}

// newBrokerCmd is the broker command; runF, when not nil, runs instead of
// runBroker (tests parse the flags without connecting).
func newBrokerCmd(runF func(*BrokerOptions) error) *cobra.Command {
	opts := &BrokerOptions{}
	cmd := &cobra.Command{
		Use:   "broker -b HOST:PORT [-t TOPIC] [--format table|json | -J]",
		Short: "Ask a live broker for its API versions and the cluster's metadata",
		Long: `broker connects to a live cluster through kdissect's client and prints three
tables: the brokers (Metadata), the topics with each partition's leader,
replicas and in-sync replicas, and the API versions of the broker it is
connected to, beside the versions the codec knows and the version negotiated
for each key (the highest both support).

--format json (or -J) prints instead the cluster's metadata as kcat -L -J
does, one line: {"originating_broker":{"id","name"},"query":{"topic"},
"controllerid","brokers":[{"id","name"}],"topics":[{"topic","partitions":
[{"partition","leader","replicas":[{"id"}],"isrs":[{"id"}]}]}]}, with
"error" (librdkafka's text) on a topic or partition that has one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.IO = ioOf(cmd)
			if runF != nil {
				return runF(opts)
			}
			return runBroker(opts)
		},
	}
	opts.bf.register(cmd.Flags())
	cmd.Flags().StringSliceVarP(&opts.topics, "topic", "t", nil, "only these topics (repeatable); default all")
	cmd.Flags().StringVar(&opts.format, "format", "table", "output: table, or json as kcat -L -J")
	cmd.Flags().BoolVarP(&opts.envelope, "json", "J", false, "same as --format json (kcat's -J)")
	return cmd
}

// runBroker asks the cluster for its metadata and the connected broker
// for its API versions, and prints them.
func runBroker(opts *BrokerOptions) error {
	format := opts.format
	if opts.envelope {
		format = "json"
	}
	if format != "table" && format != "json" {
		return fmt.Errorf("--format %q: want table or json", format)
	}
	ctx, cl, done, err := opts.bf.open(opts.IO, nil)
	if err != nil {
		return err
	}
	defer done()
	md, err := cl.Metadata(ctx, opts.topics...)
	if err != nil {
		return inputError{err}
	}
	cn, err := cl.BrokerConn(ctx, -1)
	if err != nil {
		return inputError{err}
	}
	if format == "json" {
		return kcat.WriteMetadataJSON(opts.IO.out, md, cn.Addr(), kcat.Scheme(cl.Config()), opts.topics)
	}
	return writeBrokerTables(opts.IO.out, md, cn)
}

func newTable(w io.Writer, header ...string) *tablewriter.Table {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header(header)
	return t
}

func int32List(v []int32) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(int(n))
	}
	return strings.Join(s, ",")
}

func errName(err error) string {
	if err == nil {
		return ""
	}
	if ke, ok := err.(*client.Error); ok {
		return ke.Name()
	}
	return err.Error()
}

func writeBrokerTables(w io.Writer, md *client.Metadata, cn *client.Conn) error {
	cluster := md.ClusterID
	if cluster == "" {
		cluster = "-"
	}
	fmt.Fprintf(w, "cluster %s, controller %d, Metadata v%d, connected to %s\n", cluster, md.ControllerID, md.Version, cn.Addr())
	t := newTable(w, "node", "host", "port", "rack", "controller")
	for _, b := range md.Brokers {
		ctl := ""
		if b.NodeID == md.ControllerID {
			ctl = "yes"
		}
		t.Append([]string{strconv.Itoa(int(b.NodeID)), b.Host, strconv.Itoa(int(b.Port)), b.Rack, ctl})
	}
	if err := t.Render(); err != nil {
		return err
	}
	t = newTable(w, "topic", "partition", "leader", "epoch", "replicas", "isr", "offline", "error")
	for _, tp := range md.Topics {
		if len(tp.Partitions) == 0 {
			t.Append([]string{tp.Name, "-", "-", "-", "", "", "", errName(tp.Err)})
		}
		for _, p := range tp.Partitions {
			t.Append([]string{tp.Name, strconv.Itoa(int(p.Partition)), strconv.Itoa(int(p.Leader)), strconv.Itoa(int(p.LeaderEpoch)),
				int32List(p.Replicas), int32List(p.ISR), int32List(p.Offline), errName(p.Err)})
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	t = newTable(w, "key", "api", "broker", "codec", "negotiated")
	rng := func(lo, hi int16) string {
		if hi < 0 {
			return "-"
		}
		return fmt.Sprintf("v%d-v%d", lo, hi)
	}
	for _, av := range cn.APIVersions() {
		if av.BrokerMax < 0 && av.Negotiated < 0 {
			continue // neither offered nor usable: not this broker's
		}
		neg := "-"
		if av.Negotiated >= 0 {
			neg = "v" + strconv.Itoa(int(av.Negotiated))
		}
		t.Append([]string{strconv.Itoa(int(av.Key)), av.Name, rng(av.BrokerMin, av.BrokerMax), rng(av.CodecMin, av.CodecMax), neg})
	}
	return t.Render()
}
