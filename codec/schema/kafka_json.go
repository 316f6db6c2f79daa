package schema

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

// KafkaMessage mirrors one of Apache Kafka's message definition files
// (clients/src/main/resources/common/message/*.json). Only what the wire
// format needs is read. The importer bootstraps schema files from these, and
// a test holds the schema against them.
type KafkaMessage struct {
	APIKey           *int16         `json:"apiKey"`
	Type             string         `json:"type"` // request, response, header, data, metadata
	Name             string         `json:"name"`
	ValidVersions    string         `json:"validVersions"`
	FlexibleVersions string         `json:"flexibleVersions"`
	Fields           []*KafkaField  `json:"fields"`
	CommonStructs    []*KafkaStruct `json:"commonStructs"`
}

// KafkaStruct is a common struct of a Kafka message definition.
type KafkaStruct struct {
	Name   string        `json:"name"`
	Fields []*KafkaField `json:"fields"`
}

// KafkaField is a field of a Kafka message definition.
type KafkaField struct {
	Name             string        `json:"name"`
	Type             string        `json:"type"`
	Versions         string        `json:"versions"`
	NullableVersions string        `json:"nullableVersions"`
	TaggedVersions   string        `json:"taggedVersions"`
	Tag              any           `json:"tag"` // Kafka writes most tags as numbers and a few as strings
	FlexibleVersions *string       `json:"flexibleVersions"`
	Default          any           `json:"default"`
	EntityType       string        `json:"entityType"`
	Fields           []*KafkaField `json:"fields"`
}

var lineComment = regexp.MustCompile(`(?m)^\s*//.*$`)

// ReadKafkaMessage reads one Kafka message definition file, dropping its
// // comments.
func ReadKafkaMessage(path string) (*KafkaMessage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m KafkaMessage
	if err := json.Unmarshal(lineComment.ReplaceAll(b, nil), &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}
