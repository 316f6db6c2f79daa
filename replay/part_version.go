package replay

import (
	"fmt"
	"slices"

	"github.com/kdissect/kdissect/client"
	"github.com/kdissect/kdissect/codec"
)

// partVersion returns the version a part of a split request goes at on
// cn, its broker's connection: the version the captured one becomes on
// that broker (chooseVersion with the versions cn's broker offers), or
// v, the version the rest of the request was rewritten for, with
// Options.KeepVersions. The brokers of one cluster normally offer the
// same versions; during a rolling upgrade they do not, and a part sent
// at the version chosen on another broker would be refused. When the
// part's version is not v, the part gets the topic names its topic IDs
// stand for (a version without IDs needs them), and it records the
// part's downgrade, with the fields that version cannot carry, for the
// report (per broker). Errors: the broker offers no version of the API
// the codec knows, or the part does not survive the re-encoding.
func (r *Replayer) partVersion(it *item, cn *client.Conn, p *leaderPart, v int16) (int16, error) {
	if r.opts.KeepVersions {
		return v, nil
	}
	api, _ := codec.LookupAPI(it.key)
	lo, hi, offered := cn.BrokerRange(it.key)
	pv, err := chooseVersion(api, it.version, lo, hi, offered)
	if err != nil {
		return v, fmt.Errorf("%s: %w", p.addr, err)
	}
	if pv == v {
		return v, nil
	}
	r.st.fillTopicNames(p.req)
	var formatLost []string
	if pr, ok := p.req.(*codec.ProduceRequest); ok {
		fl, _, err := convertProduceRecords(pr, pv)
		if err != nil {
			return v, fmt.Errorf("%s: %w", p.addr, err)
		}
		formatLost = fl
	}
	lost, err := lostFields(api, p.req, it.version, pv)
	if err != nil {
		return v, fmt.Errorf("%s: %w", p.addr, err)
	}
	lost = append(lost, formatLost...)
	slices.Sort(lost)
	lost = slices.Compact(lost)
	if pv != it.version {
		it.partDowngrades = append(it.partDowngrades, partDowngrade{broker: p.addr, to: pv, lost: lost})
	}
	note := fmt.Sprintf("part to %s sent at v%d: that broker offers %s v%d-v%d", p.addr, pv, api.Name, lo, hi)
	if d := describeLost(lost); d != "" {
		note += "; " + d
	}
	it.rewriteNts = append(it.rewriteNts, note)
	r.note(fmt.Sprintf("%s: the target's brokers offer different versions (%s offers v%d-v%d): each part of a split request is sent at the version its broker offers", api.Name, p.addr, lo, hi))
	return pv, nil
}

// fillTopicNames gives every struct of req that names its topic only by
// the target's topic ID the name the target gave that ID.
func (s *state) fillTopicNames(req codec.Message) {
	req.WalkFields(func(refs []codec.FieldRef) {
		for _, r := range refs {
			if p, ok := r.Ptr.(*codec.UUID); ok && r.Info.Has(codec.FieldTopicID) && !p.IsZero() {
				if name := s.targetName(*p); name != "" {
					fillName(refs, name)
				}
			}
		}
	})
}
