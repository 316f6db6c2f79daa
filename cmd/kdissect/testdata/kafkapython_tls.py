"""kafka-python client for TestKafkaPythonTLS: produces N records to a topic
and consumes them back, in plaintext or over TLS with its session keys
written to a key log (ssl_context.keylog_filename).

usage: kafkapython_tls.py BOOTSTRAP TOPIC N plain
       kafkapython_tls.py BOOTSTRAP TOPIC N 1.3|1.2 CAFILE KEYLOG [CIPHERS]
"""
import ssl
import sys

from kafka import KafkaConsumer, KafkaProducer, TopicPartition


def main():
    bootstrap, topic, n, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    common = {"bootstrap_servers": bootstrap, "client_id": "kafka-python-tls"}
    if mode != "plain":
        cafile, keylog = sys.argv[5], sys.argv[6]
        ctx = ssl.create_default_context(cafile=cafile)
        # The test certificate names kafka.test, the broker is 127.0.0.1:
        # the chain is verified, the name is not.
        ctx.check_hostname = False
        ctx.keylog_filename = keylog
        version = {"1.3": ssl.TLSVersion.TLSv1_3, "1.2": ssl.TLSVersion.TLSv1_2}[mode]
        ctx.minimum_version = ctx.maximum_version = version
        if len(sys.argv) > 7:
            ctx.set_ciphers(sys.argv[7])
        common.update(security_protocol="SSL", ssl_context=ctx)

    producer = KafkaProducer(linger_ms=0, **common)
    for i in range(n):
        producer.send(topic, key=b"k%d" % i, value=b"value %d" % i).get(timeout=30)
    producer.close()

    consumer = KafkaConsumer(group_id=None, enable_auto_commit=False, consumer_timeout_ms=20000, **common)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    got = []
    for msg in consumer:
        got.append((msg.key, msg.value))
        if len(got) == n:
            break
    consumer.close()
    want = [(b"k%d" % i, b"value %d" % i) for i in range(n)]
    if got != want:
        sys.exit("consumed %r, want %r" % (got, want))


if __name__ == "__main__":
    main()
