package freshness

import (
	"encoding/binary"
	"errors"
	"math"
	"time"
)

// The verdict cache's file format: a compact binary encoding of the
// reports (encoding/json spent most of a warm run decoding them). It is
// a cache file only this package writes and reads; a file that does not
// decode is ignored and rewritten (see CheckCached). Times keep their
// instant (seconds and nanoseconds), not their zone: every renderer
// shows them in UTC.
//
//	file    = magic version target:str count:uvarint {key:32 bytes, report}
//	report  = path:str memory:bool anchor verdict:str citations invalids
//	str     = uvarint length, bytes

var cacheMagic = []byte("echoes-verdicts\x00")

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)     { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) time(t time.Time) {
	e.b = binary.AppendVarint(e.b, t.Unix())
	e.uint(uint64(t.Nanosecond()))
}

func (e *encoder) report(r *Report) {
	e.str(r.Path)
	e.bool(r.Memory)
	a := r.Anchor
	e.str(a.Commit)
	e.time(a.Date)
	e.bool(a.WorkTree)
	e.bool(a.Verified)
	e.bool(a.Shallow)
	e.str(string(r.Verdict))
	e.uint(uint64(len(r.Citations)))
	for i := range r.Citations {
		c := &r.Citations[i]
		e.str(c.Path)
		e.int(c.Start)
		e.int(c.End)
		e.str(c.From)
		e.str(string(c.Verdict))
		e.str(c.NewPath)
		e.int(c.NewStart)
		e.int(c.NewEnd)
		e.uint(uint64(len(c.Commits)))
		for _, k := range c.Commits {
			e.str(k.Hash)
			e.str(k.Short)
			e.str(k.Subject)
			e.str(k.Author)
			e.time(k.Date)
			e.int(k.Added)
			e.int(k.Removed)
		}
		e.int(c.Count)
		e.str(c.Note)
	}
	e.uint(uint64(len(r.Invalid)))
	for _, v := range r.Invalid {
		e.str(v.Entry)
		e.str(v.Reason)
		e.int(v.Line)
	}
}

func encodeCache(cf *cacheFile) []byte {
	e := &encoder{b: append([]byte(nil), cacheMagic...)}
	e.uint(cacheVersion)
	e.str(cf.Target)
	e.uint(uint64(len(cf.Reports)))
	keys := make([]string, 0, len(cf.Reports))
	for k := range cf.Reports {
		keys = append(keys, k)
	}
	sortStrings(keys)
	for _, k := range keys {
		e.str(k)
		r := cf.Reports[k]
		e.report(&r)
	}
	return e.b
}

var errCacheFormat = errors.New("verdict cache: not a cache file of this version")

type decoder struct {
	b   []byte
	err error
	// skip: the report being read is not wanted; str returns "" without
	// copying, so skipping a report allocates nothing.
	skip bool
	all  string // the whole input; b is always a suffix of it
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = errCacheFormat
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 || v > math.MaxInt32 || v < math.MinInt32 {
		d.err = errCacheFormat
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) str() string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errCacheFormat
		return ""
	}
	var s string
	if !d.skip {
		// A substring of the file read once as a string: the strings of a
		// thousand reports cost no allocation (and no fresh memory) each.
		at := len(d.all) - len(d.b)
		s = d.all[at : at+int(n)]
	}
	d.b = d.b[n:]
	return s
}

func (d *decoder) bool() bool {
	if d.err != nil || len(d.b) == 0 || d.b[0] > 1 {
		d.err = errCacheFormat
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) time() time.Time {
	if d.err != nil {
		return time.Time{}
	}
	s, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCacheFormat
		return time.Time{}
	}
	d.b = d.b[n:]
	ns := d.uint()
	if ns >= 1e9 {
		d.err = errCacheFormat
		return time.Time{}
	}
	if s == (time.Time{}).Unix() && ns == 0 {
		return time.Time{}
	}
	return time.Unix(s, int64(ns)).UTC()
}

// count reads a list length, bounded by what the rest of the file could
// hold (each element takes at least min bytes).
func (d *decoder) count(min int) int {
	n := d.uint()
	if d.err == nil && n > uint64(len(d.b)/min) {
		d.err = errCacheFormat
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *decoder) report() Report {
	var r Report
	r.Path = d.str()
	r.Memory = d.bool()
	r.Anchor.Commit = d.str()
	r.Anchor.Date = d.time()
	r.Anchor.WorkTree = d.bool()
	r.Anchor.Verified = d.bool()
	r.Anchor.Shallow = d.bool()
	r.Verdict = Verdict(d.str())
	if n := d.count(10); n > 0 {
		r.Citations = make([]Result, n)
		for i := range r.Citations {
			c := &r.Citations[i]
			c.Path = d.str()
			c.Start = d.int()
			c.End = d.int()
			c.From = d.str()
			c.Verdict = Verdict(d.str())
			c.NewPath = d.str()
			c.NewStart = d.int()
			c.NewEnd = d.int()
			if m := d.count(8); m > 0 {
				c.Commits = make([]CommitRef, m)
				for j := range c.Commits {
					k := &c.Commits[j]
					k.Hash = d.str()
					k.Short = d.str()
					k.Subject = d.str()
					k.Author = d.str()
					k.Date = d.time()
					k.Added = d.int()
					k.Removed = d.int()
				}
			}
			c.Count = d.int()
			c.Note = d.str()
		}
	}
	if n := d.count(3); n > 0 {
		r.Invalid = make([]Invalid, n)
		for i := range r.Invalid {
			r.Invalid[i].Entry = d.str()
			r.Invalid[i].Reason = d.str()
			r.Invalid[i].Line = d.int()
		}
	}
	return r
}

func decodeCache(b []byte) (cacheFile, error) { return decodeCacheFor(b, nil) }

// decodeCacheFor decodes the reports whose keys are in want (all when
// want is nil), checking the whole file as decodeCache does: a reader of
// a few reports (the SessionStart hook's eight) does not copy the other
// thousand.
func decodeCacheFor(b []byte, want map[string]bool) (cacheFile, error) {
	if len(b) < len(cacheMagic) || string(b[:len(cacheMagic)]) != string(cacheMagic) {
		return cacheFile{}, errCacheFormat
	}
	all := string(b)
	d := &decoder{b: b[len(cacheMagic):], all: all}
	if d.uint() != cacheVersion {
		return cacheFile{}, errCacheFormat
	}
	cf := cacheFile{Version: cacheVersion, Target: d.str()}
	n := d.count(20)
	cf.Reports = make(map[string]Report, n)
	for i := 0; i < n && d.err == nil; i++ {
		k := d.str()
		if want != nil && !want[k] {
			d.skip = true
			d.report()
			d.skip = false
			continue
		}
		cf.Reports[k] = d.report()
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = errCacheFormat
	}
	if d.err != nil {
		return cacheFile{}, d.err
	}
	return cf, nil
}
