package replay

import "github.com/kdissect/kdissect/codec"

// telemetryID is a client's telemetry identity (KIP-714): the instance
// id and subscription id a GetTelemetrySubscriptions answer gives, which
// PushTelemetry and later GetTelemetrySubscriptions requests send back.
type telemetryID struct {
	instance     codec.UUID
	subscription int32
}

// learnTelemetry records the identity the target gave where the capture's
// broker gave another.
func (s *state) learnTelemetry(captured, target *codec.GetTelemetrySubscriptionsResponse) {
	if captured.ErrorCode != 0 || target.ErrorCode != 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.telemetry[captured.ClientInstanceId] = telemetryID{target.ClientInstanceId, target.SubscriptionId}
	s.subscriptions[captured.SubscriptionId] = target.SubscriptionId
}

// telemetryRewrite gives a GetTelemetrySubscriptions or PushTelemetry
// request the target's client instance id and subscription id for the
// captured ones. Ids the target has not given are sent as captured.
func (s *state) telemetryRewrite(req codec.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch q := req.(type) {
	case *codec.GetTelemetrySubscriptionsRequest:
		if t, ok := s.telemetry[q.ClientInstanceId]; ok && !q.ClientInstanceId.IsZero() {
			q.ClientInstanceId = t.instance
		}
	case *codec.PushTelemetryRequest:
		if t, ok := s.telemetry[q.ClientInstanceId]; ok {
			q.ClientInstanceId = t.instance
		}
		if sub, ok := s.subscriptions[q.SubscriptionId]; ok {
			q.SubscriptionId = sub
		}
	}
}
