package kcat

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/kdissect/kdissect/client"
)

// librdkafkaErrText is librdkafka's text (rd_kafka_err2str) of the broker
// error codes Metadata answers carry, which kcat -L -J prints as "error".
// Other codes are "Broker: " and Kafka's name.
var librdkafkaErrText = map[int16]string{
	3:  "Broker: Unknown topic or partition",
	5:  "Broker: Leader not available",
	6:  "Broker: Not leader for partition",
	9:  "Broker: Replica not available",
	17: "Broker: Invalid topic",
	29: "Broker: Topic authorization failed",
	74: "Broker: Fenced leader epoch",
	75: "Broker: Unknown leader epoch",
}

// Scheme is the prefix librdkafka gives broker names for the security
// protocol of cfg: "ssl://", "sasl_plaintext://", "sasl_ssl://", or ""
// for plaintext.
func Scheme(cfg client.Config) string {
	switch {
	case cfg.TLS != nil && cfg.SASL != nil:
		return "sasl_ssl://"
	case cfg.TLS != nil:
		return "ssl://"
	case cfg.SASL != nil:
		return "sasl_plaintext://"
	}
	return ""
}

func librdkafkaErr(err error) string {
	var ke *client.Error
	if !errors.As(err, &ke) {
		return err.Error()
	}
	if s, ok := librdkafkaErrText[ke.Code()]; ok {
		return s
	}
	return "Broker: " + ke.Name()
}

// WriteMetadataJSON prints the metadata as kcat -L -J does, key for key:
// originating_broker (the broker that answered, named "host:port/id" as
// librdkafka names it), query (the topics asked, "*" for all), controllerid,
// brokers, topics with their partitions, replicas and in-sync replicas as
// {"id"} objects, and "error" where a topic or partition has one. kcat
// ends the object without a newline; here it is a line. scheme is
// librdkafka's prefix of the originating broker's name for its security
// protocol (Scheme), origin the answering broker's HOST:PORT, topics
// those asked (none: all). Topics are printed in md's order (the client
// sorts them by name; kcat keeps the broker's order, which some brokers
// vary). One Write call; error: w's.
func WriteMetadataJSON(w io.Writer, md *client.Metadata, origin, scheme string, topics []string) error {
	originID := int32(-1)
	for _, b := range md.Brokers {
		if b.Addr() == origin {
			originID = b.NodeID
		}
	}
	name := scheme + origin + "/" + strconv.Itoa(int(originID))
	if originID < 0 {
		name = scheme + origin + "/bootstrap"
	}
	query := "*"
	if len(topics) > 0 {
		query = strings.Join(topics, ",")
	}
	buf := []byte(`{"originating_broker":{"id":`)
	buf = strconv.AppendInt(buf, int64(originID), 10)
	buf = append(buf, `,"name":`...)
	buf = appendYajlString(buf, []byte(name))
	buf = append(buf, `},"query":{"topic":`...)
	buf = appendYajlString(buf, []byte(query))
	buf = append(buf, `},"controllerid":`...)
	buf = strconv.AppendInt(buf, int64(md.ControllerID), 10)
	sep := func(i int) {
		if i > 0 {
			buf = append(buf, ',')
		}
	}
	buf = append(buf, `,"brokers":[`...)
	for i, b := range md.Brokers {
		sep(i)
		buf = append(buf, `{"id":`...)
		buf = strconv.AppendInt(buf, int64(b.NodeID), 10)
		buf = append(buf, `,"name":`...)
		buf = appendYajlString(buf, []byte(b.Host+":"+strconv.Itoa(int(b.Port))))
		buf = append(buf, '}')
	}
	buf = append(buf, `],"topics":[`...)
	ids := func(key string, v []int32) {
		buf = append(buf, `,"`+key+`":[`...)
		for i, id := range v {
			sep(i)
			buf = append(buf, `{"id":`...)
			buf = strconv.AppendInt(buf, int64(id), 10)
			buf = append(buf, '}')
		}
		buf = append(buf, ']')
	}
	errField := func(err error) {
		if err != nil {
			buf = append(buf, `,"error":`...)
			buf = appendYajlString(buf, []byte(librdkafkaErr(err)))
		}
	}
	for i, t := range md.Topics {
		sep(i)
		buf = append(buf, `{"topic":`...)
		buf = appendYajlString(buf, []byte(t.Name))
		errField(t.Err)
		buf = append(buf, `,"partitions":[`...)
		for j, p := range t.Partitions {
			sep(j)
			buf = append(buf, `{"partition":`...)
			buf = strconv.AppendInt(buf, int64(p.Partition), 10)
			errField(p.Err)
			buf = append(buf, `,"leader":`...)
			buf = strconv.AppendInt(buf, int64(p.Leader), 10)
			ids("replicas", p.Replicas)
			ids("isrs", p.ISR)
			buf = append(buf, '}')
		}
		buf = append(buf, "]}"...)
	}
	buf = append(buf, "]}\n"...)
	_, err := w.Write(buf)
	return err
}
