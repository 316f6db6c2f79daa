package client

import (
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// ConsumeGroup: a member consumes every assigned partition to its end and
// commits what its handler consumed, so that the group's next member
// reads only what came after; a handler that stops has what it consumed
// committed and no more; a new group starting at the end reads nothing;
// a handler's error comes back as it is.
func TestConsumeGroup(t *testing.T) {
	noLeaks(t)
	c := newCluster(t, kfake.NumBrokers(2), kfake.SeedTopics(4, "gt"))
	ctx := testCtx(t)
	cl := newClient(t, c, nil)
	p, err := NewProducer(cl, ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	produce := func(from, to int) {
		t.Helper()
		for i := from; i <= to; i++ {
			if _, err := p.Produce(ctx, "gt", int32(i%4), Record{Value: []byte(strconv.Itoa(i))}); err != nil {
				t.Fatal(err)
			}
		}
	}
	co := NewConsumer(cl, ConsumerConfig{MaxWait: 10 * time.Millisecond})
	// consume runs a member until stopAfter messages (0: the end of every
	// partition) and returns the values it consumed, sorted, and how
	// often it was told of an assignment and of an end.
	consume := func(group string, atEnd bool, stopAfter int) (got []int, assigned, ends int) {
		t.Helper()
		cfg := GroupConsumeConfig{GroupConfig: GroupConfig{Group: group, Topics: []string{"gt"}}, StartAtEnd: atEnd, ExitAtEnd: stopAfter == 0,
			OnAssign: func(m *GroupMember, rejoined bool) {
				if a := m.Assignment(); !rejoined && slices.Equal(a["gt"], []int32{0, 1, 2, 3}) {
					assigned++
				}
			},
			OnEnd: func(*GroupPartition) { ends++ }}
		err := co.ConsumeGroup(ctx, cfg, func(gp *GroupPartition, fr *FetchResult) (bool, error) {
			for _, m := range fr.Messages {
				n, err := strconv.Atoi(string(m.Value))
				if err != nil {
					return false, err
				}
				got = append(got, n)
				gp.Next = m.NextOffset
				if len(got) == stopAfter {
					return true, nil
				}
			}
			return false, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		return got, assigned, ends
	}
	produce(1, 30)
	if got, assigned, ends := consume("g1", false, 0); !slices.Equal(got, upTo(1, 30)) || assigned != 1 || ends != 4 {
		t.Errorf("first member: %v, assigned %d times, %d ends", got, assigned, ends)
	}
	if got, _, ends := consume("g1", false, 0); len(got) != 0 || ends != 4 {
		t.Errorf("second member, after the first committed: %v, %d ends", got, ends)
	}
	if got, _, _ := consume("g2", true, 0); len(got) != 0 {
		t.Errorf("a new group at the end: %v", got)
	}
	produce(31, 40)
	first, _, _ := consume("g1", false, 3)
	rest, _, _ := consume("g1", false, 0)
	if all := slices.Sorted(slices.Values(append(first, rest...))); len(first) != 3 || !slices.Equal(all, upTo(31, 40)) {
		t.Errorf("stopped after 3: %v, then %v", first, rest)
	}
	// Two members at once: the first consumes nothing until the second's
	// join rebalanced it (so that they share the partitions), then between
	// them every message is consumed once.
	produce(42, 81)
	var wg sync.WaitGroup
	got := make([][]int, 2)
	rejoined := make([]int, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := GroupConsumeConfig{GroupConfig: GroupConfig{Group: "g1", Topics: []string{"gt"}, HeartbeatInterval: 20 * time.Millisecond},
				OnAssign: func(_ *GroupMember, again bool) {
					if again {
						rejoined[i]++
					}
				}}
			err := NewConsumer(newClient(t, c, nil), ConsumerConfig{MaxWait: 10 * time.Millisecond}).ConsumeGroup(ctx, cfg, func(gp *GroupPartition, fr *FetchResult) (bool, error) {
				if i == 0 && rejoined[0] == 0 {
					return false, nil // nothing consumed: nothing committed
				}
				for _, m := range fr.Messages {
					n, _ := strconv.Atoi(string(m.Value))
					got[i] = append(got[i], n)
					gp.Next = m.NextOffset
					if len(got[i]) == 20 {
						return true, nil
					}
				}
				return false, nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(200 * time.Millisecond) // the first joins alone, then the second
	}
	wg.Wait()
	if rejoined[0] == 0 || len(got[0]) != 20 || len(got[1]) != 20 {
		t.Errorf("the first member rejoined %d times; they consumed %d and %d messages, want 20 each", rejoined[0], len(got[0]), len(got[1]))
	}
	if all := slices.Sorted(slices.Values(append(got[0], got[1]...))); !slices.Equal(all, upTo(42, 81)) {
		t.Errorf("two members consumed %v and %v, want 42-81 once each", got[0], got[1])
	}
	produce(41, 41)
	errBad := errors.New("bad")
	err = co.ConsumeGroup(ctx, GroupConsumeConfig{GroupConfig: GroupConfig{Group: "g1", Topics: []string{"gt"}}},
		func(*GroupPartition, *FetchResult) (bool, error) { return false, errBad })
	if err != errBad {
		t.Errorf("handler's error: %v", err)
	}
}

func upTo(from, to int) []int {
	var n []int
	for i := from; i <= to; i++ {
		n = append(n, i)
	}
	return n
}
