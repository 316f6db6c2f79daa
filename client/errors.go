package client

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/kdissect/kdissect/codec"
)

// Error is every error this package reports about a request: a Kafka error
// code from a response (codec.LookupError's table: name, description,
// retriable flag, as of Kafka's Errors.java), or a client-side condition
// with a negative code of -1000 or below, numbered as the Perl Kafka
// package numbered them (Kafka.pm: -1001 cannot send, -1002 no
// acknowledgement, -1004 cannot connect, -1009 CorrelationId mismatch, ...).
//
// Two *Error values match under errors.Is when their codes are equal, so
// the exported sentinels below match any error of their code whatever its
// context:
//
//	if errors.Is(err, client.ErrNotLeaderOrFollower) { ... }
//	var ke *client.Error
//	if errors.As(err, &ke) { log(ke.Code(), ke.Name()) }
//
// An Error may wrap a cause (a net.Error, a decode error) that errors.Is
// and errors.As also reach.
type Error struct {
	code      int16
	name      string
	desc      string
	retriable bool

	// Topic and Partition say what the error is about, when it is about a
	// topic-partition (Partition is -1 for a whole topic); Topic is empty
	// otherwise.
	Topic     string
	Partition int32
	// Message is the broker's ErrorMessage for this error, when the
	// response carried one, or a client-side explanation.
	Message string
	// Err is the cause, or nil.
	Err error
}

// Where returns " on TOPIC[PARTITION]" (" on TOPIC" for a whole
// topic), or "" when the error is about no topic.
func (e *Error) Where() string {
	switch {
	case e.Topic == "":
		return ""
	case e.Partition >= 0:
		return fmt.Sprintf(" on %s[%d]", e.Topic, e.Partition)
	}
	return " on " + e.Topic
}

// Code returns the Kafka error code, or a client-side code (<= -1000).
func (e *Error) Code() int16 { return e.code }

// Name returns Kafka's name for the code ("NOT_LEADER_OR_FOLLOWER") or the
// client-side condition's ("CANNOT_CONNECT").
func (e *Error) Name() string { return e.name }

// Description returns Kafka's message text for the code, or the
// client-side condition's.
func (e *Error) Description() string { return e.desc }

// Retriable reports whether the request may be retried after a metadata
// refresh and a backoff: Kafka's RetriableException classes, and for
// client-side conditions those after which the request cannot have reached
// the broker (cannot connect, cannot send). Whether a retry is safe also
// depends on the request: a Produce answered by no acknowledgement may have
// been written (see Producer).
func (e *Error) Retriable() bool { return e.retriable }

// Error returns "NAME (code N): description", with the topic-partition,
// the broker's message and the cause when there are.
func (e *Error) Error() string {
	s := e.name + " (code " + strconv.Itoa(int(e.code)) + ")" + e.Where()
	switch {
	case e.Message != "":
		s += ": " + e.Message
	case e.desc != "":
		s += ": " + e.desc
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.code == e.code
}

// with returns a copy of e carrying the given context.
func (e *Error) with(topic string, partition int32, msg string, cause error) *Error {
	c := *e
	c.Topic, c.Partition, c.Message, c.Err = topic, partition, msg, cause
	return &c
}

// ErrorForCode returns nil for code 0 (NONE), else an *Error for the Kafka
// error code, with Kafka's name, description and retriable flag; a code
// Kafka does not define is named UNKNOWN_ERROR_CODE_<n> and not retriable.
func ErrorForCode(code int16) error {
	if code == 0 {
		return nil
	}
	return kafkaError(code)
}

func kafkaError(code int16) *Error {
	if info, ok := codec.LookupError(code); ok {
		return &Error{code: code, name: info.Name, desc: info.Description, retriable: info.Retriable, Partition: -1}
	}
	return &Error{code: code, name: codec.ErrorName(code), Partition: -1}
}

// partitionError returns nil for code 0, else the Kafka error for code
// about topic[partition] (partition -1: the topic) with the broker's
// message, if any.
func partitionError(code int16, topic string, partition int32, msg *string) error {
	if code == 0 {
		return nil
	}
	m := ""
	if msg != nil {
		m = *msg
	}
	return kafkaError(code).with(topic, partition, m, nil)
}

// Client-side conditions. The codes are the Perl Kafka package's where it
// had one; ErrTimeout (-1020) is new.
var (
	// ErrInvalidArgument: a caller's argument is out of range (-1000).
	ErrInvalidArgument = &Error{code: -1000, name: "INVALID_ARGUMENT", desc: "Invalid argument", Partition: -1}
	// ErrCannotSend: the request could not be written to the connection;
	// the broker cannot have acted on it (-1001).
	ErrCannotSend = &Error{code: -1001, name: "CANNOT_SEND", desc: "Cannot send", retriable: true, Partition: -1}
	// ErrNoAcknowledgement: the request was written but no response was
	// read (the connection closed, failed or timed out); the broker may
	// have acted on it (-1002). Errors for those causes wrap this one and
	// ErrCannotReceive or ErrTimeout.
	ErrNoAcknowledgement = &Error{code: -1002, name: "NO_ACKNOWLEDGEMENT", desc: "No acknowledgement for sent request", retriable: true, Partition: -1}
	// ErrCannotReceive: reading the response failed (-1003).
	ErrCannotReceive = &Error{code: -1003, name: "CANNOT_RECEIVE", desc: "Cannot receive", retriable: true, Partition: -1}
	// ErrCannotConnect: no connection could be opened to the broker (TCP,
	// TLS, ApiVersions or SASL failed) (-1004).
	ErrCannotConnect = &Error{code: -1004, name: "CANNOT_CONNECT", desc: "Cannot connect to broker", retriable: true, Partition: -1}
	// ErrCannotGetMetadata: no broker answered a Metadata request (-1007).
	ErrCannotGetMetadata = &Error{code: -1007, name: "CANNOT_GET_METADATA", desc: "Cannot get Metadata", retriable: true, Partition: -1}
	// ErrLeaderNotFound: the metadata names no live leader for the
	// topic-partition (-1008).
	ErrLeaderNotFound = &Error{code: -1008, name: "LEADER_NOT_FOUND", desc: "Leader not found", retriable: true, Partition: -1}
	// ErrCorrelationMismatch: a response carried another CorrelationId
	// than the request's; the connection is closed (-1009).
	ErrCorrelationMismatch = &Error{code: -1009, name: "MISMATCH_CORRELATIONID", desc: "Mismatch CorrelationId", Partition: -1}
	// ErrNoKnownBrokers: no bootstrap address was given or none is left
	// (-1010).
	ErrNoKnownBrokers = &Error{code: -1010, name: "NO_KNOWN_BROKERS", desc: "There are no known brokers", Partition: -1}
	// ErrBadResponse: the response could not be decoded, or does not
	// answer the request (-1011).
	ErrBadResponse = &Error{code: -1011, name: "BAD_RESPONSE", desc: "Bad request or response element", Partition: -1}
	// ErrCompression: a record batch or message could not be decompressed
	// (-1015); Message.Error carries it.
	ErrCompression = &Error{code: -1015, name: "COMPRESSION", desc: "Compression error", Partition: -1}
	// ErrClosed: the connection or client was closed (-1018).
	ErrClosed = &Error{code: -1018, name: "NO_CONNECTION", desc: "No IO connection", Partition: -1}
	// ErrCoordinatorNotFound: FindCoordinator named no coordinator (-1019).
	ErrCoordinatorNotFound = &Error{code: -1019, name: "COORDINATOR_NOT_FOUND", desc: "Group Coordinator not found", retriable: true, Partition: -1}
	// ErrTimeout: the request timeout or the context's deadline passed
	// while waiting for the broker (-1020).
	ErrTimeout = &Error{code: -1020, name: "TIMEOUT", desc: "Timed out waiting for the broker", retriable: true, Partition: -1}
)

// Kafka error codes callers commonly test for. Any other code matches
// errors.Is against ErrorForCode(code).
var (
	ErrOffsetOutOfRange             = kafkaError(1)
	ErrCorruptMessage               = kafkaError(2)
	ErrUnknownTopicOrPartition      = kafkaError(3)
	ErrLeaderNotAvailable           = kafkaError(5)
	ErrNotLeaderOrFollower          = kafkaError(6)
	ErrRequestTimedOut              = kafkaError(7)
	ErrMessageTooLarge              = kafkaError(10)
	ErrNetworkException             = kafkaError(13)
	ErrCoordinatorLoadInProgress    = kafkaError(14)
	ErrCoordinatorNotAvailable      = kafkaError(15)
	ErrNotCoordinator               = kafkaError(16)
	ErrNotEnoughReplicasAfterAppend = kafkaError(20)
	ErrSaslAuthenticationFailed     = kafkaError(58)
	ErrUnsupportedSaslMechanism     = kafkaError(33)
	ErrTopicAuthorizationFailed     = kafkaError(29)
	// ErrUnsupportedVersion (code 35) is returned both when a broker
	// answers UNSUPPORTED_VERSION and when the client finds no version of
	// an API that both it and the broker support.
	ErrUnsupportedVersion          = kafkaError(35)
	ErrOutOfOrderSequenceNumber    = kafkaError(45)
	ErrDuplicateSequenceNumber     = kafkaError(46)
	ErrInvalidProducerEpoch        = kafkaError(47)
	ErrUnknownProducerID           = kafkaError(59)
	ErrIllegalSaslState            = kafkaError(34)
	ErrInvalidRecord               = kafkaError(87)
	ErrFencedLeaderEpoch           = kafkaError(74)
	ErrUnknownLeaderEpoch          = kafkaError(75)
	ErrUnknownTopicID              = kafkaError(100)
	ErrInconsistentTopicID         = kafkaError(103)
	ErrOffsetNotAvailable          = kafkaError(78)
	ErrGroupAuthorizationFailed    = kafkaError(30)
	ErrClusterAuthorizationFailed  = kafkaError(31)
	ErrInvalidRequiredAcks         = kafkaError(21)
	ErrPolicyViolation             = kafkaError(44)
	ErrUnstableOffsetCommit        = kafkaError(88)
	ErrThrottlingQuotaExceeded     = kafkaError(89)
	ErrNotEnoughReplicas           = kafkaError(19)
	ErrKafkaStorageError           = kafkaError(56)
	ErrReplicaNotAvailable         = kafkaError(9)
	ErrInvalidTopic                = kafkaError(17)
	ErrRecordListTooLarge          = kafkaError(18)
	ErrIllegalGeneration           = kafkaError(22)
	ErrUnknownMemberID             = kafkaError(25)
	ErrRebalanceInProgress         = kafkaError(27)
	ErrInvalidTimestamp            = kafkaError(32)
	ErrUnsupportedForMessageFormat = kafkaError(43)
	ErrUnsupportedCompressionType  = kafkaError(76)
	ErrGroupIDNotFound             = kafkaError(69)
)

// clientError returns a copy of sentinel with msg and cause.
func clientError(sentinel *Error, msg string, cause error) *Error {
	return sentinel.with("", -1, msg, cause)
}

// isRetriable reports whether err is an *Error marked retriable.
func isRetriable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.retriable
}
