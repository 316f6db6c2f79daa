package replay

import (
	"fmt"

	"github.com/kdissect/kdissect/codec"
)

// metadataNoCreateVersion is the first Metadata version that can ask
// the broker not to create the topics it names (AllowAutoTopicCreation,
// KIP-204): v0-v3 create them on a broker with auto.create.topics.enable.
// With Options.ReadOnly a Metadata request captured below it is sent at
// it when the target offers it.
const metadataNoCreateVersion = 4

// readOnlyMetadata makes req, when it is a Metadata request captured at
// version from and sent at version to, ask for no topic creation: its
// AllowAutoTopicCreation false, and, when it goes from v0 (where an
// empty topic list means every topic) to v1+, a null topic list for an
// empty one. It returns what it did for the plan, "" when req is not a
// Metadata request. Below v4 the field does not exist: the answer says
// the broker may create the topics named.
func readOnlyMetadata(req codec.Message, from, to int16) string {
	m, ok := req.(*codec.MetadataRequest)
	if !ok {
		return ""
	}
	if from == 0 && to >= 1 && len(m.Topics) == 0 {
		m.Topics = nil
	}
	was := m.AllowAutoTopicCreation || from < metadataNoCreateVersion
	m.AllowAutoTopicCreation = false
	switch {
	case to < metadataNoCreateVersion && len(m.Topics) > 0:
		return fmt.Sprintf("read-only: Metadata v%d cannot ask not to create topics, and the target offers no v%d+: a broker with auto.create.topics.enable creates the topics it names", to, metadataNoCreateVersion)
	case to < metadataNoCreateVersion:
		return ""
	case from < metadataNoCreateVersion:
		return fmt.Sprintf("read-only: sent at v%d with AllowAutoTopicCreation false (v%d cannot ask not to create topics)", to, from)
	case was:
		return "read-only: AllowAutoTopicCreation true → false"
	}
	return ""
}
