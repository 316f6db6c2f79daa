package client

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/kdissect/kdissect/codec"
)

// TestErrorForCode: a Kafka code becomes an *Error with the table's name,
// description and retriable flag, matched by errors.Is against the
// sentinel of its code whatever the context it carries.
func TestErrorForCode(t *testing.T) {
	if ErrorForCode(0) != nil {
		t.Fatal("code 0 is not an error")
	}
	err := ErrorForCode(6)
	var ke *Error
	if !errors.As(err, &ke) {
		t.Fatalf("%T is not *Error", err)
	}
	if ke.Code() != 6 || ke.Name() != "NOT_LEADER_OR_FOLLOWER" || !ke.Retriable() || ke.Description() == "" {
		t.Errorf("got code %d name %s retriable %v desc %q", ke.Code(), ke.Name(), ke.Retriable(), ke.Description())
	}
	wrapped := fmt.Errorf("produce: %w", partitionError(6, "orders", 3, nil))
	if !errors.Is(wrapped, ErrNotLeaderOrFollower) || errors.Is(wrapped, ErrUnknownTopicOrPartition) {
		t.Error("errors.Is does not match by code")
	}
	if got := partitionError(6, "orders", 3, nil).Error(); got != "NOT_LEADER_OR_FOLLOWER (code 6) on orders[3]: "+ke.Description() {
		t.Errorf("Error() = %q", got)
	}
	if got := partitionError(29, "orders", -1, ptr("denied")).Error(); got != "TOPIC_AUTHORIZATION_FAILED (code 29) on orders: denied" {
		t.Errorf("Error() = %q", got)
	}
	unk := ErrorForCode(30000).(*Error)
	if unk.Name() != "UNKNOWN_ERROR_CODE_30000" || unk.Retriable() {
		t.Errorf("unknown code: %v", unk)
	}
}

// TestSentinelsMatchTable: every exported Kafka sentinel has the name and
// retriable flag of Kafka's table (codec.LookupError).
func TestSentinelsMatchTable(t *testing.T) {
	for _, e := range []*Error{
		ErrOffsetOutOfRange, ErrCorruptMessage, ErrUnknownTopicOrPartition, ErrLeaderNotAvailable,
		ErrNotLeaderOrFollower, ErrRequestTimedOut, ErrMessageTooLarge, ErrNetworkException,
		ErrCoordinatorLoadInProgress, ErrCoordinatorNotAvailable, ErrNotCoordinator,
		ErrNotEnoughReplicasAfterAppend, ErrSaslAuthenticationFailed, ErrUnsupportedSaslMechanism,
		ErrTopicAuthorizationFailed, ErrUnsupportedVersion, ErrOutOfOrderSequenceNumber,
		ErrDuplicateSequenceNumber, ErrInvalidProducerEpoch, ErrUnknownProducerID, ErrIllegalSaslState,
		ErrInvalidRecord, ErrFencedLeaderEpoch, ErrUnknownLeaderEpoch, ErrUnknownTopicID,
		ErrInconsistentTopicID, ErrOffsetNotAvailable, ErrGroupAuthorizationFailed,
		ErrClusterAuthorizationFailed, ErrInvalidRequiredAcks, ErrPolicyViolation,
		ErrUnstableOffsetCommit, ErrThrottlingQuotaExceeded, ErrNotEnoughReplicas,
		ErrKafkaStorageError, ErrReplicaNotAvailable, ErrInvalidTopic, ErrRecordListTooLarge,
		ErrIllegalGeneration, ErrUnknownMemberID, ErrRebalanceInProgress, ErrInvalidTimestamp,
		ErrUnsupportedForMessageFormat, ErrUnsupportedCompressionType, ErrGroupIDNotFound,
	} {
		info, ok := codec.LookupError(e.Code())
		if !ok || info.Name != e.Name() || info.Retriable != e.Retriable() || info.Description != e.Description() {
			t.Errorf("sentinel %s (%d) disagrees with the table: %+v", e.Name(), e.Code(), info)
		}
	}
}

// TestClientSideCodes: the client-side sentinels keep the Perl package's
// numbers (Kafka.pm: -1001 cannot send, -1002 no ack, -1004 cannot bind,
// -1009 mismatch CorrelationId, ...), are all distinct, and wrap causes.
func TestClientSideCodes(t *testing.T) {
	want := map[*Error]int16{
		ErrInvalidArgument: -1000, ErrCannotSend: -1001, ErrNoAcknowledgement: -1002,
		ErrCannotReceive: -1003, ErrCannotConnect: -1004, ErrCannotGetMetadata: -1007,
		ErrLeaderNotFound: -1008, ErrCorrelationMismatch: -1009, ErrNoKnownBrokers: -1010,
		ErrBadResponse: -1011, ErrCompression: -1015, ErrClosed: -1018,
		ErrCoordinatorNotFound: -1019, ErrTimeout: -1020,
	}
	seen := map[int16]bool{}
	for e, code := range want {
		if e.Code() != code {
			t.Errorf("%s: code %d, want %d", e.Name(), e.Code(), code)
		}
		if seen[code] {
			t.Errorf("code %d twice", code)
		}
		seen[code] = true
	}
	err := clientError(ErrNoAcknowledgement, "Produce v9 to x", clientError(ErrCannotReceive, "", io.ErrUnexpectedEOF))
	if !errors.Is(err, ErrNoAcknowledgement) || !errors.Is(err, ErrCannotReceive) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("chain broken: %v", err)
	}
	if errors.Is(err, ErrTimeout) {
		t.Error("matched ErrTimeout")
	}
	if !isRetriable(ErrCannotConnect) || isRetriable(ErrCorrelationMismatch) || isRetriable(ErrBadResponse) {
		t.Error("retriable flags")
	}
}

func ptr[T any](v T) *T { return &v }
