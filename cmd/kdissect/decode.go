package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/kdissect/kdissect/codec"
	"github.com/kdissect/kdissect/dissect"
	"github.com/kdissect/kdissect/output/render"
)

func newDecodeCmd() *cobra.Command {
	var (
		apiFlag     string
		version     int16
		sizePrefix  string
		input       string
		compact     bool
		showSecrets bool
	)
	cmd := &cobra.Command{
		Use:   "decode [HEX...]",
		Short: "Decode one Kafka frame given as hex or raw bytes",
		Long: `Decode one Kafka request or response frame (header and body), given as hex
on the command line or on standard input, or as raw bytes on standard input,
with or without its 4-byte size prefix.

A request carries its ApiKey and ApiVersion. A response carries neither:
name them with --api and --version. Given without them, a frame that does
not read as a request is refused, with the APIs and versions under which it
decodes whole as a response.

Hex may be written with spaces, newlines, colons or commas between bytes, and
0x or \x before them, as bytes are often copied out of logs and bug reports.
The dumps of xxd, hexdump -C, od -A x -t x1 and tshark -x are read as the
bytes they show (offsets and ASCII columns left out); a tshark -x dump of a
packet decodes as its TCP payload, or its "Reassembled TCP" section when
tshark shows one.`,
		Example: `  kdissect decode 00120003000000010007636f6e736f6c6500096b6469737365637404312e3000
  kdissect decode --api Produce --version 9 < response.hex
  xxd frame.bin | kdissect decode
  tshark -r capture.pcap -x -Y 'frame.number == 7' | kdissect decode`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var data []byte
			if len(args) > 0 {
				data = []byte(strings.Join(args, " "))
				if input == "auto" {
					input = "hex" // arguments are text: raw bytes come on stdin
				}
			} else {
				// Frames above 100 MiB are refused by brokers (socket.request.max.bytes);
				// hex with separators takes about three times that.
				const maxInput = 512 << 20
				b, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), maxInput+1))
				if err != nil {
					return inputError{fmt.Errorf("read standard input: %w", err)}
				}
				if len(b) > maxInput {
					return inputError{fmt.Errorf("standard input holds more than %d bytes: not one frame", int64(maxInput))}
				}
				data = b
			}
			frame, inNotes, err := parseFrameInput(data, input)
			if err != nil {
				return err
			}
			fr, err := stripSizePrefix(frame, sizePrefix, apiFlag == "")
			if err != nil {
				return err
			}
			frame = fr.frame
			ex := &dissect.Exchange{APIKey: -1, APIVersion: -1}
			for _, n := range inNotes {
				ex.AddNote(dissect.NoteInput, n)
			}
			if fr.note != "" {
				ex.AddNote(dissect.NoteMalformed, fr.note)
			}
			f := &dissect.Frame{Bytes: frame, Size: int32(len(frame))}
			if apiFlag == "" {
				if cmd.Flags().Changed("version") {
					return fmt.Errorf("--version names a response's version and needs --api; a request carries its own")
				}
				if len(frame) < 8 {
					return fmt.Errorf("a request frame needs at least 8 bytes (ApiKey, ApiVersion, CorrelationId), got %d", len(frame))
				}
				if err := checkRequest(frame, fr.cut); err != nil {
					return err
				}
				ex.Request = f
				ex.APIKey = int16(binary.BigEndian.Uint16(frame))
				ex.APIVersion = int16(binary.BigEndian.Uint16(frame[2:]))
				ex.CorrelationID = int32(binary.BigEndian.Uint32(frame[4:]))
			} else {
				api, err := parseAPI(apiFlag)
				if err != nil {
					return err
				}
				if !cmd.Flags().Changed("version") {
					return fmt.Errorf("--api needs --version: a response does not carry its version")
				}
				if version < 0 {
					return fmt.Errorf("--version %d: want a version number", version)
				}
				if !api.SupportsVersion(version) {
					ex.AddNote(dissect.NoteUnknownVersion, fmt.Sprintf("unsupported version: %s v%d (the codec knows v%d-v%d)", api.Name, version, api.MinVersion, api.MaxVersion))
				}
				if fr.maybeCut && api.SupportsVersion(version) && responseCutShort(api, version, fr.whole, fr.cutSize) {
					// The first 4 bytes are a size prefix after all.
					frame = fr.whole[4:]
					fr.prefixed, fr.cut, fr.size = true, true, fr.cutSize
					f.Bytes = frame
				}
				if len(frame) < 4 {
					return fmt.Errorf("a response frame needs at least 4 bytes (CorrelationId), got %d", len(frame))
				}
				ex.Response = f
				ex.APIKey, ex.APIVersion = api.Key, version
				ex.CorrelationID = int32(binary.BigEndian.Uint32(frame))
			}
			w := codec.NewJSONWriter(nil)
			if fr.cut {
				// Cut short: what was captured, and where the rest lay;
				// the decoder reads the frame as far as it goes.
				f.Size = int32(fr.size)
				ex.AddNote(dissect.NoteTruncated, cutNote(len(frame), fr.size))
			}
			dissect.NewDecoder(dissect.DecodeOptions{}).DecodeFrames(ex)
			if fr.prefixed {
				w.OffsetBase = 4 // offsets as in the input, which starts with the size
			}
			w.ShowSecrets = showSecrets
			render.AppendFrameJSON(w, ex)
			out := w.Bytes()
			if !compact {
				var buf bytes.Buffer
				if err := json.Indent(&buf, out, "", "  "); err != nil {
					return fmt.Errorf("internal error: invalid JSON: %w", err)
				}
				out = buf.Bytes()
			}
			if _, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", out); err != nil {
				return inputError{fmt.Errorf("write output: %w", err)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&apiFlag, "api", "", "the response's API, by name (Produce) or key (0)")
	cmd.Flags().Int16Var(&version, "version", 0, "the response's ApiVersion")
	cmd.Flags().StringVar(&sizePrefix, "size-prefix", "auto", "whether the input starts with the 4-byte size: auto, yes or no")
	cmd.Flags().StringVar(&input, "input", "auto", "input encoding: auto (hex if it parses as hex, else raw), hex or raw")
	cmd.Flags().BoolVar(&compact, "compact", false, "print JSON on one line")
	cmd.Flags().BoolVar(&showSecrets, "show-secrets", false, "show SASL credentials and delegation token HMACs instead of redacting them")
	return cmd
}

// parseAPI accepts an API name (case-insensitive) or key.
func parseAPI(s string) (*codec.API, error) {
	if n, err := strconv.ParseInt(s, 10, 16); err == nil {
		if api, ok := codec.LookupAPI(int16(n)); ok {
			return api, nil
		}
		return nil, fmt.Errorf("unknown API key %d (see kdissect apis)", n)
	}
	for _, a := range codec.APIs() {
		if strings.EqualFold(a.Name, s) {
			api, _ := codec.LookupAPI(a.Key)
			return api, nil
		}
	}
	return nil, fmt.Errorf("unknown API %q (see kdissect apis)", s)
}

// parseFrameInput turns the input into frame bytes: raw, plain hex, or a
// hex dump (xxd, tshark -x, hexdump -C, od), with notes on what was read.
func parseFrameInput(data []byte, mode string) ([]byte, []string, error) {
	switch mode {
	case "raw":
		return data, nil, nil
	case "hex", "auto":
		if wordDump.Match(data) {
			return nil, nil, fmt.Errorf("a dump of 2-byte words (hexdump without -C, od -x) shows them in the machine's byte order, not the frame's: dump with hexdump -C, xxd or od -A x -t x1")
		}
		if isText(data) {
			if b, notes, ok := dumpFrame(data); ok {
				return b, notes, nil
			}
		}
		b, err := parseHex(data)
		if err == nil {
			return b, nil, nil
		}
		if mode == "hex" {
			return nil, nil, fmt.Errorf("input is not hex: %w", err)
		}
		if isText(data) {
			// Text that is not hex is a mistyped hex frame far more often
			// than a frame of printable bytes.
			return nil, nil, fmt.Errorf("input is neither hex nor a hex dump (xxd, tshark -x, hexdump -C, od -A x -t x1): %w (--input raw reads the bytes as they are)", err)
		}
		return data, nil, nil
	}
	return nil, nil, fmt.Errorf("unknown --input %q (want auto, hex or raw)", mode)
}

// parseHex reads hex digits separated by white space, colons, commas or
// dashes, each byte optionally written 0x.. or \x.. .
func parseHex(data []byte) ([]byte, error) {
	s := string(bytes.TrimSpace(data))
	if s == "" {
		return nil, fmt.Errorf("no input")
	}
	s = strings.NewReplacer("0x", " ", "0X", " ", `\x`, " ", ",", " ", ":", " ", "-", " ").Replace(s)
	var digits strings.Builder
	for _, field := range strings.Fields(s) {
		for _, r := range field {
			if !unicode.Is(unicode.ASCII_Hex_Digit, r) {
				return nil, fmt.Errorf("%q is not a hex digit", r)
			}
		}
		switch {
		case len(field) == 1:
			field = "0" + field // "0x0" or "0 1 2" style single digits
		case len(field)%2 == 1:
			return nil, fmt.Errorf("odd number of hex digits in %q: a nibble is missing", field)
		}
		digits.WriteString(field)
	}
	return hex.DecodeString(digits.String())
}

// isText says whether b is printable ASCII and white space only.
func isText(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// framing is what stripSizePrefix found.
type framing struct {
	frame    []byte // the frame, without its size prefix
	note     string // a size prefix that does not match, or ""
	prefixed bool   // a size prefix was removed
	// cut says the size prefix announces more bytes than follow: the
	// frame was cut short (copied from a capture with a small snap
	// length, a truncated log line), size bytes long.
	cut  bool
	size int
	// maybeCut says, for a response in auto mode, that the first 4 bytes
	// may be a size prefix larger than what follows (a response carries
	// neither ApiKey nor ApiVersion to tell): the caller decides with
	// responseCutShort over whole, the input, for a frame of cutSize
	// bytes.
	maybeCut bool
	whole    []byte
	cutSize  int
}

// stripSizePrefix removes a leading 4-byte size: with auto, when it equals
// the length of what follows, or, for a request, when the size is off but
// only the bytes after it start with a known ApiKey and ApiVersion (bytes
// copied with one too many or too few); with yes, always. A size that does
// not match the bytes that follow is noted, except a size larger than
// they are: the frame was cut short, and is decoded as far as it goes.
func stripSizePrefix(b []byte, mode string, request bool) (framing, error) {
	prefix := func() framing {
		n := int64(binary.BigEndian.Uint32(b))
		fr := framing{frame: b[4:], prefixed: true, size: len(b) - 4}
		switch {
		case n > int64(len(b)-4) && n <= math.MaxInt32:
			fr.cut, fr.size = true, int(n)
		case n != int64(len(b)-4):
			fr.note = fmt.Sprintf("the size prefix says %d bytes, %d follow", n, len(b)-4)
		}
		return fr
	}
	whole := framing{frame: b, size: len(b)}
	switch mode {
	case "auto":
		if len(b) >= 4 && int64(binary.BigEndian.Uint32(b)) == int64(len(b)-4) {
			return framing{frame: b[4:], prefixed: true, size: len(b) - 4}, nil
		}
		if request && len(b) >= 8 && !knownRequest(b) && knownRequest(b[4:]) && binary.BigEndian.Uint32(b) > 0 {
			return prefix(), nil
		}
		if !request && len(b) >= 8 {
			if n := int64(binary.BigEndian.Uint32(b)); n > int64(len(b)-4) && n <= math.MaxInt32 {
				whole.maybeCut, whole.whole, whole.cutSize = true, b, int(n)
			}
		}
		return whole, nil
	case "yes":
		if len(b) < 4 {
			return framing{}, fmt.Errorf("input of %d bytes has no 4-byte size prefix", len(b))
		}
		return prefix(), nil
	case "no":
		return whole, nil
	}
	return framing{}, fmt.Errorf("unknown --size-prefix %q (want auto, yes or no)", mode)
}

// knownRequest says whether b starts with an ApiKey and ApiVersion the
// codec knows.
func knownRequest(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	api, ok := codec.LookupAPI(int16(binary.BigEndian.Uint16(b)))
	return ok && api.SupportsVersion(int16(binary.BigEndian.Uint16(b[2:])))
}

// responseCutShort says whether b, a response whose first 4 bytes read as
// a size larger than what follows, is better read as a frame of size bytes
// cut short than as a frame without a size prefix: when it does not decode
// whole without the prefix, and with it decodes up to where the capture
// ends, without a malformed field.
func responseCutShort(api *codec.API, version int16, b []byte, size int) bool {
	whole := func(r *codec.Reader) error {
		h := new(codec.ResponseHeader)
		h.ReadFrom(r, codec.ResponseHeaderVersion(api.Key, version))
		api.NewResponse().ReadFrom(r, version)
		return r.Err()
	}
	r := codec.NewReader(b)
	if whole(r) == nil && r.Remaining() == 0 {
		return false
	}
	err := whole(codec.NewGappedReader(b[4:], size, nil))
	return err == nil || errors.Is(err, codec.ErrNotCaptured)
}

// cutNote says what a frame cut short lacks.
func cutNote(held, size int) string {
	return fmt.Sprintf("frame cut short: the size prefix says %d bytes, %d follow: the last %d bytes were not captured; the fields in them are not decoded (not_captured says where)", size, held, size-held)
}

// checkRequest refuses a frame given without --api that is no request:
// its ApiKey is unknown or its version unsupported or its body does not
// decode whole, while as a response (which carries neither ApiKey nor
// ApiVersion) it decodes whole under some APIs and versions: those are
// named, for --api and --version. A request that is only damaged (no
// response reading fits either) is decoded, its damage noted. cut says
// the frame was cut short: its body cannot decode whole.
func checkRequest(frame []byte, cut bool) error {
	key, ver := int16(binary.BigEndian.Uint16(frame)), int16(binary.BigEndian.Uint16(frame[2:]))
	api, known := codec.LookupAPI(key)
	why := ""
	switch {
	case !known:
		why = fmt.Sprintf("ApiKey %d is unknown", key)
	case !api.SupportsVersion(ver):
		why = fmt.Sprintf("%s has no version %d", api.Name, ver)
	case cut:
		return nil
	default:
		r := codec.NewReader(frame)
		new(codec.RequestHeader).ReadFrom(r, codec.RequestHeaderVersion(key, ver))
		api.NewRequest().ReadFrom(r, ver)
		if r.Err() == nil && r.Remaining() == 0 {
			return nil
		}
		why = fmt.Sprintf("it does not decode whole as %s v%d", api.Name, ver)
	}
	cands := responseCandidates(frame)
	if len(cands) == 0 {
		if !known || !api.SupportsVersion(ver) {
			return fmt.Errorf("not a request (%s), nor a response of any API at any version: check the bytes (and --size-prefix)", why)
		}
		return nil // a damaged request: decoded, the damage noted
	}
	const show = 8
	list := strings.Join(cands[:min(len(cands), show)], ", ")
	if len(cands) > show {
		list += fmt.Sprintf(" and %d more", len(cands)-show)
	}
	return fmt.Errorf("not a request (%s); as a response it decodes whole as %s: name it with --api NAME --version V", why, list)
}

// responseCandidates lists the APIs and versions ("Metadata v1") under
// which frame decodes whole as a response.
func responseCandidates(frame []byte) []string {
	var out []string
	for _, a := range codec.APIs() {
		api, _ := codec.LookupAPI(a.Key)
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			r := codec.NewReader(frame)
			new(codec.ResponseHeader).ReadFrom(r, codec.ResponseHeaderVersion(api.Key, v))
			api.NewResponse().ReadFrom(r, v)
			if r.Err() == nil && r.Remaining() == 0 {
				out = append(out, fmt.Sprintf("%s v%d", api.Name, v))
			}
		}
	}
	return out
}
