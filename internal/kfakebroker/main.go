// Command kfakebroker runs an in-process fake Kafka cluster (franz-go's
// kfake) on 127.0.0.1 so that real Kafka clients such as kcat can be
// pointed at it while tcpdump records the traffic. It exists to regenerate
// the test captures in testdata/pcaps (see testdata/pcaps/regen.sh); it is
// not a Kafka broker for any other use.
//
// Usage:
//
//	kfakebroker [-port 9092] [-brokers 1] [-topics name:partitions,...]
//	            [-partitions 3] [-legacy | -kfake-versions]
//
// Brokers listen on consecutive ports starting at -port. Topics may also be
// created on the fly (auto topic creation is on, with -partitions
// partitions each). The listen addresses are printed one per line on
// stdout, after which the cluster runs until SIGINT or SIGTERM.
//
// Two things differ from a bare kfake cluster:
//
//   - ApiVersions advertises Produce and Fetch from v0, as Kafka brokers
//     before 4.0 do (kfake itself starts at Produce v3 and Fetch v4).
//     librdkafka 2.0 only compresses with gzip, snappy or lz4 when the
//     broker lists Produce v0, so without this kcat -z sends plain batches.
//   - With -legacy, Produce v0-2 and Fetch v0-3 are served from a small
//     message-set log (see legacy.go) and ApiVersions caps Produce at v2 and
//     Fetch at v3, so clients fall back to MessageSet magic 1; clients told
//     not to ask (api.version.request=false) use magic 0.
//
// With -kfake-versions neither applies: ApiVersions is kfake's own answer,
// as franz-go clients get from a bare kfake. The franz-go captures use it;
// their clients need no Produce or Fetch below kfake's minimum, and an
// UpdateFeatures then shows in later ApiVersions answers (the edited answer
// above keeps the features the cluster had when it started).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kfakebroker:", err)
		os.Exit(1)
	}
}

func run() error {
	port := flag.Int("port", 9092, "port of the first broker; further brokers use the following ports")
	brokers := flag.Int("brokers", 1, "number of brokers")
	topics := flag.String("topics", "", "seed topics as name:partitions,... (partitions may be omitted)")
	partitions := flag.Int("partitions", 3, "partitions of auto-created topics and of seed topics without a count")
	legacy := flag.Bool("legacy", false, "serve Produce v0-2 and Fetch v0-3 (MessageSet magic 0 and 1) and advertise no newer")
	kfakeVersions := flag.Bool("kfake-versions", false, "answer ApiVersions as kfake does (Produce from v3, Fetch from v4, live feature levels)")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", flag.Args())
	}
	if *brokers < 1 {
		return fmt.Errorf("-brokers must be at least 1, got %d", *brokers)
	}
	if *port < 1 || *port+*brokers-1 > 65535 {
		return fmt.Errorf("-port %d with -brokers %d is out of range", *port, *brokers)
	}
	if *partitions < 1 {
		return fmt.Errorf("-partitions must be at least 1, got %d", *partitions)
	}
	if *legacy && *kfakeVersions {
		return fmt.Errorf("-legacy and -kfake-versions exclude each other")
	}

	ports := make([]int, *brokers)
	for i := range ports {
		ports[i] = *port + i
	}
	opts := []kfake.Opt{
		kfake.Ports(ports...),
		kfake.AllowAutoTopicCreation(),
		kfake.DefaultNumPartitions(*partitions),
	}
	seeds, err := parseTopics(*topics)
	if err != nil {
		return err
	}
	opts = append(opts, seeds...)

	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return fmt.Errorf("starting cluster: %w", err)
	}
	defer c.Close()

	addrs := c.ListenAddrs()
	if !*kfakeVersions {
		if err := overrideApiVersions(c, addrs[0], *legacy); err != nil {
			return err
		}
	}
	if *legacy {
		installLegacy(c)
	}
	for _, addr := range addrs {
		fmt.Println(addr)
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	<-sigs
	return nil
}

// overrideApiVersions makes the cluster answer ApiVersions with its own
// answer edited: Produce and Fetch start at v0 and, if legacy, end at v2 and
// v3. It learns that answer by asking the cluster once, through a franz-go
// client, before any other client can connect. Requests newer than that one
// still get kfake's own answer.
func overrideApiVersions(c *kfake.Cluster, seed string, legacy bool) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seed))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	base, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	cl.Close()
	if err != nil {
		return fmt.Errorf("asking the cluster for its versions: %w", err)
	}
	keys := slices.Clone(base.ApiKeys)
	for i := range keys {
		k := &keys[i]
		switch kmsg.Key(k.ApiKey) {
		case kmsg.Produce:
			k.MinVersion = 0
			if legacy {
				k.MaxVersion = 2
			}
		case kmsg.Fetch:
			k.MinVersion = 0
			if legacy {
				k.MaxVersion = 3
			}
		}
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		req := kr.(*kmsg.ApiVersionsRequest)
		if req.Version > base.Version {
			return nil, nil, false // kfake answers with its downgrade reply
		}
		c.KeepControl()
		resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
		resp.ApiKeys = slices.Clone(keys)
		resp.SupportedFeatures = base.SupportedFeatures
		resp.FinalizedFeatures = base.FinalizedFeatures
		resp.FinalizedFeaturesEpoch = base.FinalizedFeaturesEpoch
		return resp, nil, true
	})
	return nil
}

// parseTopics turns "a:3,b,c:1" into SeedTopics options. A topic without a
// partition count gets the cluster's default.
func parseTopics(s string) ([]kfake.Opt, error) {
	var opts []kfake.Opt
	for spec := range strings.SplitSeq(s, ",") {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		name, count, hasCount := strings.Cut(spec, ":")
		if name == "" {
			return nil, fmt.Errorf("topic spec %q: empty topic name", spec)
		}
		n := int32(-1) // kfake: non-positive means DefaultNumPartitions
		if hasCount {
			v, err := strconv.ParseInt(count, 10, 32)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("topic spec %q: partitions must be a positive integer", spec)
			}
			n = int32(v)
		}
		opts = append(opts, kfake.SeedTopics(n, name))
	}
	return opts, nil
}
