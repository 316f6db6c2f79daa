package replay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/dissect"
)

// Options configures a Replayer. The zero value replays everything to
// nobody: Broker (or Client.Brokers) must be set unless DryRun is.
type Options struct {
	// Broker is the target's bootstrap address, "host:port". It is
	// prepended to Client.Brokers.
	Broker string
	// Client configures every connection to the target (TLS, SASL,
	// timeouts, DialFunc). Its ClientID is replaced, per captured
	// connection, by the ClientId that connection sent.
	Client client.Config

	// Speed divides the captured gaps between requests: 1 keeps the
	// captured pacing, 10 is ten times faster, 0 (or negative) sends each
	// request as soon as the causal order allows (--speed max).
	Speed float64
	// Concurrency is the most captured connections replayed at once
	// (each holds a connection per target broker it needs); 0 means
	// DefaultConcurrency. Below the connections open at once, runners
	// are stopped and started again (see sched) without changing the
	// causal order; the members of a rebalance count as one: a
	// connection whose request the capture sent while a JoinGroup or
	// SyncGroup waited goes beyond it (the report notes how often).
	Concurrency int

	// KeepVersions sends every request at its captured version even when
	// the target does not advertise it.
	KeepVersions bool

	// APIs, when not empty, replays only requests of these ApiKeys.
	APIs []int16
	// Topics, when not empty, replays only requests that touch one of
	// these topics (names as captured, before TopicMap).
	Topics []string
	// Streams, when not empty, replays only these captured connections.
	Streams []int
	// Select, when set, replays only the requests of the exchanges (as
	// captured, decoded) it returns true for (-Y). It runs on the
	// goroutine calling Add.
	Select func(*dissect.Exchange) bool
	// TopicMap renames topics: captured name → name sent to the target.
	TopicMap map[string]string
	// ReadOnly skips every request of an API that writes (see IsWrite).
	ReadOnly bool
	// DryRun sends nothing and opens no connection: the report only says
	// what would be sent (Report.Plan), at the captured versions.
	DryRun bool

	// Window bounds the requests read ahead of the replay (see Window);
	// its zero value takes the defaults.
	Window Window
	// MaxPlan bounds Report.Plan; 0 means DefaultMaxPlan, negative
	// keeps no plan.
	MaxPlan int
}

// DefaultMaxPlan is the default bound of Report.Plan.
const DefaultMaxPlan = 10000

func (o *Options) maxPlan() int {
	switch {
	case o.MaxPlan == 0:
		return DefaultMaxPlan
	case o.MaxPlan < 0:
		return 0
	}
	return o.MaxPlan
}

// DefaultConcurrency is the default cap on captured connections replayed
// at once.
const DefaultConcurrency = 64

// ErrBadOption is wrapped by the errors New returns for unusable options.
var ErrBadOption = errors.New("bad replay option")

func (o *Options) check() error {
	if o.Broker == "" && len(o.Client.Brokers) == 0 && !o.DryRun {
		return fmt.Errorf("%w: no target broker", ErrBadOption)
	}
	if o.Concurrency < 0 {
		return fmt.Errorf("%w: concurrency %d is negative", ErrBadOption, o.Concurrency)
	}
	if err := o.Window.check(); err != nil {
		return err
	}
	for from, to := range o.TopicMap {
		if from == "" || to == "" {
			return fmt.Errorf("%w: topic map %q=%q: both names are needed", ErrBadOption, from, to)
		}
		if err := validTopicName(to); err != nil {
			return fmt.Errorf("%w: topic map %q=%q: %w", ErrBadOption, from, to, err)
		}
	}
	return nil
}

// brokers returns the bootstrap addresses.
func (o *Options) brokers() []string {
	var out []string
	if o.Broker != "" {
		out = append(out, o.Broker)
	}
	return append(out, o.Client.Brokers...)
}

func (o *Options) concurrency() int {
	if o.Concurrency > 0 {
		return o.Concurrency
	}
	return DefaultConcurrency
}

// ParseTopicMap reads OLD=NEW pairs (as --map-topic gives them) into a
// map; an error names the pair that is malformed or repeated.
func ParseTopicMap(pairs []string) (map[string]string, error) {
	m := make(map[string]string, len(pairs))
	for _, p := range pairs {
		from, to, ok := strings.Cut(p, "=")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" || strings.Contains(to, "=") {
			return nil, fmt.Errorf("%w: topic map %q: want OLD=NEW", ErrBadOption, p)
		}
		if err := validTopicName(to); err != nil {
			return nil, fmt.Errorf("%w: topic map %q: %w", ErrBadOption, p, err)
		}
		if _, dup := m[from]; dup {
			return nil, fmt.Errorf("%w: topic %q mapped twice", ErrBadOption, from)
		}
		m[from] = to
	}
	return m, nil
}

// maxTopicNameLen is the longest topic name Kafka accepts.
const maxTopicNameLen = 249

// validTopicName returns an error when name is not a legal Kafka topic
// name (Kafka's Topic.validate): 1 to 249 characters of [a-zA-Z0-9._-],
// and neither "." nor "..".
func validTopicName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty topic name")
	case name == "." || name == "..":
		return fmt.Errorf("topic name %q is not allowed", name)
	case len(name) > maxTopicNameLen:
		return fmt.Errorf("topic name of %d characters: at most %d", len(name), maxTopicNameLen)
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("topic name %q: %q is not one of [a-zA-Z0-9._-]", name, c)
		}
	}
	return nil
}
