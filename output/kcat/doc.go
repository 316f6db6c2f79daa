// Package kcat prints what kdissect's client fetched the way kcat 1.7
// (librdkafka 2.x) prints it, byte for byte, so that scripts written
// around kcat read kdissect's consume, broker and consume -Q unchanged:
// kcat -C's -f format (Format), its -J message envelope (WriteJSON),
// kcat -L -J's metadata object (WriteMetadataJSON) and kcat -Q's offsets
// (WriteOffsets, WriteOffsetsJSON). Strings in JSON are written as kcat's
// JSON library (yajl) writes them, invalid UTF-8 as it is. It keeps no
// state between calls and speaks to no broker.
package kcat
