package codec

import (
	"encoding/base64"
	"encoding/hex"
)

// UUID is a Kafka uuid field (16 bytes), such as a TopicId (KIP-516).
type UUID [16]byte

// IsZero reports whether u is the all-zero UUID, which Kafka uses for "no topic id".
func (u UUID) IsZero() bool { return u == UUID{} }

// String formats u as Kafka prints topic ids: URL-safe base64 without padding
// (org.apache.kafka.common.Uuid#toString).
func (u UUID) String() string { return base64.RawURLEncoding.EncodeToString(u[:]) }

// Hex formats u as 32 lowercase hex digits.
func (u UUID) Hex() string { return hex.EncodeToString(u[:]) }
