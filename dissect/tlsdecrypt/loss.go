package tlsdecrypt

import "fmt"

// Hole says n bytes of direction dir were lost (the capture lacks them,
// TCP says how many). Encrypted records they hit are lost whole, and
// reported to the Handler as Lost plaintext of the length they carried:
// when the loss lies inside a record whose header was read, the next
// record starts where that header said; when it swallowed a header, the
// bytes after it are scanned for a record header, and the record found
// is confirmed by opening it (the AEAD tag is the oracle) with the
// sequence numbers the lost bytes allow, a bounded number of tries.
func (c *Conn) Hole(dir Dir, n int64) {
	hf := &c.half[dir&1]
	if n <= 0 {
		return
	}
	switch hf.mode {
	case modeDead:
	case modeSkipping:
		if hf.pos+n > hf.skipTo {
			hf.pos += n
			c.startScan(hf)
			return
		}
	case modeScanning:
		// A record header before the new loss whose record reaches
		// into it cannot be confirmed: scan from the loss's end.
		hf.pos += n
		c.startScan(hf)
		return
	default:
		if !hf.keyed || !c.encrypted(hf, recApplicationData) {
			hf.pos += n
			c.die(hf, fmt.Sprintf("%d bytes of the TLS handshake not captured: not decrypted", n))
			return
		}
		hf.lostSeq = hf.seq
		hf.lostFrom = hf.pos - int64(hf.nhdr) // the record the loss hit began there
		if hf.nhdr == 5 {
			hf.lostFrom = hf.recStart
		}
		if hf.nhdr == 5 && hf.pos+n <= hf.recStart+5+int64(hf.recLen) {
			hf.mode, hf.skipTo = modeSkipping, hf.recStart+5+int64(hf.recLen)
			hf.nhdr, hf.rec = 0, hf.rec[:0]
			hf.pos += n
			if hf.pos == hf.skipTo {
				c.skipped(hf)
			}
			return
		}
		hf.nhdr, hf.rec = 0, hf.rec[:0]
		hf.pos += n
		c.startScan(hf)
		return
	}
	hf.pos += n
}

// skipped ends stepping over the one record a loss hit.
func (c *Conn) skipped(hf *half) {
	hf.mode = modeNormal
	c.resume(hf, 1, hf.skipTo)
}

// resume goes on after k records lost, the next starting at stream
// offset at: the sequence number advances by k, and the plaintext they
// carried is lost.
func (c *Conn) resume(hf *half, k int, at int64) {
	hf.seq = hf.lostSeq + uint64(k)
	c.info.LostRecords += int64(k)
	lost := at - hf.lostFrom - int64(k)*int64(5+c.su.overhead())
	c.h.Lost(hf.dir, max(lost, 0))
}

func (c *Conn) startScan(hf *half) {
	hf.mode = modeScanning
	hf.scan, hf.scanPos, hf.scanAt = hf.scan[:0], hf.pos, 0
}

// rescan looks for the record after a loss among the bytes gathered.
func (c *Conn) rescan(hf *half) {
	over := int64(5 + c.su.overhead())
	for hf.scanAt+5 <= len(hf.scan) {
		if hf.scanAt > 5+maxRecord {
			// A record header must start within any record's
			// length of bytes: none confirmed.
			c.die(hf, "lost the TLS record boundary after bytes not captured: the rest of the direction is not decrypted")
			return
		}
		i := hf.scanAt
		var hdr [5]byte
		copy(hdr[:], hf.scan[i:])
		if plausibleHeader(hdr[:], true) {
			end := i + 5 + (int(hdr[3])<<8 | int(hdr[4]))
			if end > len(hf.scan) {
				return // wait for the whole record
			}
			at := hf.scanPos + int64(i)
			ct := at - hf.lostFrom
			kmin := max(1, int((ct+5+maxRecord-1)/(5+maxRecord)))
			kmax := min(int(ct/over), kmin+maxSeqTries-1)
			body := hf.scan[i+5 : end]
			for k := kmin; k <= kmax; k++ {
				if _, _, ok := c.open(hf, &hf.keys, hdr, body, hf.lostSeq+uint64(k)); ok {
					rest := hf.scan[i:]
					hf.mode = modeNormal
					c.resume(hf, k, at)
					hf.pos = at
					hf.scan = nil // rest aliases it: the next scan starts afresh
					c.Feed(hf.dir, rest)
					return
				}
			}
		}
		hf.scanAt++
	}
}
