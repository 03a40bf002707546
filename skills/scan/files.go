package scan

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/binary"
	"io"
	"path"
	"strings"
)

// What sniff says a file is.
type fileClass int

const (
	classOther fileClass = iota
	classExecutable
	classArchive
	// classMedia: images, fonts, PDF, audio and video, which a skill ships
	// as assets and which are not reported.
	classMedia
)

type magic struct {
	off   int
	sig   string
	class fileClass
	name  string
}

// magics are the formats sniff knows, by their first bytes.
var magics = []magic{
	{0, "\x7fELF", classExecutable, "ELF"},
	{0, "\xfe\xed\xfa\xce", classExecutable, "Mach-O"},
	{0, "\xfe\xed\xfa\xcf", classExecutable, "Mach-O"},
	{0, "\xce\xfa\xed\xfe", classExecutable, "Mach-O"},
	{0, "\xcf\xfa\xed\xfe", classExecutable, "Mach-O"},
	{0, "\xca\xfe\xba\xbe", classExecutable, "Mach-O universal or Java class"},
	{0, "\x00asm", classExecutable, "WebAssembly"},
	{0, "dex\n", classExecutable, "Dalvik"},
	{0, "PK\x03\x04", classArchive, "zip"},
	{0, "PK\x05\x06", classArchive, "zip"},
	{0, "\x1f\x8b", classArchive, "gzip"},
	{0, "BZh", classArchive, "bzip2"},
	{0, "\xfd7zXZ\x00", classArchive, "xz"},
	{0, "\x28\xb5\x2f\xfd", classArchive, "zstd"},
	{0, "\x04\x22\x4d\x18", classArchive, "lz4"},
	{0, "7z\xbc\xaf\x27\x1c", classArchive, "7z"},
	{0, "Rar!\x1a\x07\x01\x00", classArchive, "rar5"},
	{0, "Rar!\x1a\x07\x00", classArchive, "rar"},
	{0, "MSCF\x00\x00\x00\x00", classArchive, "cab"},
	{0, "!<arch>\n", classArchive, "ar"},
	{0, "xar!", classArchive, "xar"},
	{0, "\xed\xab\xee\xdb", classArchive, "rpm"},
	{257, "ustar", classArchive, "tar"},
	{0, "\x89PNG\r\n\x1a\n", classMedia, "PNG"},
	{0, "\xff\xd8\xff", classMedia, "JPEG"},
	{0, "GIF8", classMedia, "GIF"},
	{0, "BM", classMedia, "BMP"},
	{0, "\x00\x00\x01\x00", classMedia, "ICO"},
	{0, "%PDF-", classMedia, "PDF"},
	{0, "\x00\x01\x00\x00\x00", classMedia, "TrueType"},
	{0, "OTTO", classMedia, "OpenType"},
	{0, "wOFF", classMedia, "WOFF"},
	{0, "wOF2", classMedia, "WOFF2"},
	{0, "ID3", classMedia, "MP3"},
	{0, "OggS", classMedia, "Ogg"},
	{0, "fLaC", classMedia, "FLAC"},
	{4, "ftyp", classMedia, "MP4"},
	{0, "\x1a\x45\xdf\xa3", classMedia, "Matroska"},
}

// sniff names data's format by its first bytes.
func sniff(data []byte) (fileClass, string) {
	for _, m := range magics {
		if len(data) >= m.off+len(m.sig) && string(data[m.off:m.off+len(m.sig)]) == m.sig {
			return m.class, m.name
		}
	}
	if len(data) >= 12 && string(data[:4]) == "RIFF" {
		return classMedia, "RIFF"
	}
	if isPE(data) {
		return classExecutable, "PE (Windows)"
	}
	return classOther, ""
}

// isPE reports a DOS header whose e_lfanew leads to a PE signature.
func isPE(data []byte) bool {
	if len(data) < 0x40 || string(data[:2]) != "MZ" {
		return false
	}
	off := int(binary.LittleEndian.Uint32(data[0x3c:]))
	return off >= 0 && off+4 <= len(data) && string(data[off:off+4]) == "PE\x00\x00"
}

// archiveExts are the names of archives inside archives.
var archiveExts = []string{".zip", ".jar", ".war", ".apk", ".whl", ".egg", ".nupkg", ".tar", ".tgz", ".tbz", ".tbz2", ".txz",
	".gz", ".bz2", ".xz", ".zst", ".lz4", ".lzma", ".7z", ".rar", ".cab", ".iso", ".dmg", ".deb", ".rpm", ".cpio", ".ar", ".xar", ".pkg", ".msi"}

func archiveName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, e := range archiveExts {
		if ext == e {
			return true
		}
	}
	return false
}

// maxInnerBytes bounds what the archive checks decompress of one archive
// (a gzip bomb stops here).
const maxInnerBytes = 64 << 20

// maxEntries bounds the entries of one archive the checks look at.
const maxEntries = 10000

// fileChecks runs the "file" checks on one file's bytes.
func (s *scanner) fileChecks(rel string, data []byte) {
	class, name := sniff(data)
	switch class {
	case classExecutable:
		s.addCheck("executable", rel, 0, name)
	case classArchive:
		s.addCheck("archive", rel, 0, name)
		enc, nested := inspectArchive(name, data)
		if enc != "" {
			s.addCheck("archive-encrypted", rel, 0, enc)
		}
		if nested != "" {
			s.addCheck("archive-nested", rel, 0, nested)
		}
	case classOther:
		if !isText(data) {
			s.addCheck("opaque", rel, 0, "")
		}
	}
}

// inspectArchive says whether an archive of the named format is encrypted
// (what is) and holds another archive (which).
func inspectArchive(format string, data []byte) (encrypted, nested string) {
	switch format {
	case "zip":
		return inspectZip(data)
	case "7z":
		// The AES-256 coder's id in the headers: the files, or the headers
		// themselves, are encrypted.
		if bytes.Contains(data, []byte{0x06, 0xf1, 0x07, 0x01}) {
			return "7z with AES encryption", ""
		}
	case "rar":
		return inspectRAR4(data)
	case "rar5":
		return inspectRAR5(data)
	case "tar":
		return "", inspectTar(bytes.NewReader(data))
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return "", ""
		}
		return "", inspectStream(io.LimitReader(zr, maxInnerBytes))
	case "bzip2":
		return "", inspectStream(io.LimitReader(bzip2.NewReader(bytes.NewReader(data)), maxInnerBytes))
	}
	return "", ""
}

// inspectStream looks at a decompressed stream: a tar is walked, any
// other archive is nested.
func inspectStream(r io.Reader) string {
	head := make([]byte, 512)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	class, name := sniff(head)
	if class != classArchive {
		return ""
	}
	if name == "tar" {
		return inspectTar(io.MultiReader(bytes.NewReader(head), r))
	}
	return "a compressed " + name
}

func inspectTar(r io.Reader) string {
	tr := tar.NewReader(r)
	for range maxEntries {
		h, err := tr.Next()
		if err != nil {
			return ""
		}
		if archiveName(h.Name) {
			return h.Name
		}
		if h.Typeflag == tar.TypeReg {
			head := make([]byte, 264)
			n, _ := io.ReadFull(tr, head)
			if c, _ := sniff(head[:n]); c == classArchive {
				return h.Name
			}
		}
	}
	return ""
}

func inspectZip(data []byte) (encrypted, nested string) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return inspectZipHeaders(data)
	}
	for i, f := range zr.File {
		if i >= maxEntries {
			break
		}
		if f.Flags&1 != 0 && encrypted == "" {
			encrypted = "zip entry " + f.Name + " is encrypted"
		}
		if nested == "" && archiveName(f.Name) {
			nested = f.Name
		}
		if nested == "" && f.Flags&1 == 0 && !f.FileInfo().IsDir() {
			if rc, err := f.Open(); err == nil {
				head := make([]byte, 264)
				n, _ := io.ReadFull(rc, head)
				rc.Close()
				if c, _ := sniff(head[:n]); c == classArchive {
					nested = f.Name
				}
			}
		}
	}
	return encrypted, nested
}

// inspectZipHeaders reads the local file headers of a zip whose central
// directory does not parse (a damaged or crafted archive still unpacks
// with some tools).
func inspectZipHeaders(data []byte) (encrypted, nested string) {
	for i, n := 0, 0; n < maxEntries; n++ {
		k := bytes.Index(data[i:], []byte("PK\x03\x04"))
		if k < 0 {
			break
		}
		h := data[i+k:]
		if len(h) < 30 {
			break
		}
		flags := binary.LittleEndian.Uint16(h[6:])
		nameLen := int(binary.LittleEndian.Uint16(h[26:]))
		name := ""
		if 30+nameLen <= len(h) {
			name = string(h[30 : 30+nameLen])
		}
		if flags&1 != 0 && encrypted == "" {
			encrypted = "zip entry " + name + " is encrypted"
		}
		if nested == "" && archiveName(name) {
			nested = name
		}
		i += k + 4
	}
	return encrypted, nested
}

// inspectRAR4 walks a RAR 1.5–4 archive's blocks: the main header's
// "headers encrypted" flag, each file header's "encrypted" flag and name.
func inspectRAR4(data []byte) (encrypted, nested string) {
	pos := 7
	for n := 0; n < maxEntries && pos+7 <= len(data); n++ {
		typ := data[pos+2]
		flags := binary.LittleEndian.Uint16(data[pos+3:])
		size := int(binary.LittleEndian.Uint16(data[pos+5:]))
		if size < 7 {
			break
		}
		add := 0
		if flags&0x8000 != 0 && pos+11 <= len(data) {
			add = int(binary.LittleEndian.Uint32(data[pos+7:]))
		}
		switch typ {
		case 0x73:
			if flags&0x0080 != 0 {
				return "rar with encrypted headers", nested
			}
		case 0x74:
			if flags&0x0004 != 0 && encrypted == "" {
				encrypted = "rar entry is encrypted"
			}
			nameAt := pos + 32
			if flags&0x0100 != 0 {
				nameAt += 8
			}
			if pos+28 <= len(data) {
				nameLen := int(binary.LittleEndian.Uint16(data[pos+26:]))
				if nameAt+nameLen <= len(data) && nested == "" && archiveName(string(data[nameAt:nameAt+nameLen])) {
					nested = string(data[nameAt : nameAt+nameLen])
				}
			}
		}
		if add < 0 || pos+size+add <= pos {
			break
		}
		pos += size + add
	}
	return encrypted, nested
}

// inspectRAR5 walks a RAR 5 archive's headers: an archive encryption
// header, or a file header with an encryption record, and the names.
func inspectRAR5(data []byte) (encrypted, nested string) {
	pos := 8
	for n := 0; n < maxEntries && pos+5 <= len(data); n++ {
		r := &vintReader{b: data, pos: pos + 4}
		hsize, ok := r.next()
		if !ok || hsize == 0 {
			break
		}
		start := r.pos
		end := start + int(hsize)
		if end > len(data) || end < start {
			break
		}
		typ, _ := r.next()
		hflags, _ := r.next()
		var extra, dataSize uint64
		if hflags&1 != 0 {
			extra, _ = r.next()
		}
		if hflags&2 != 0 {
			dataSize, _ = r.next()
		}
		switch typ {
		case 4:
			return "rar5 with encrypted headers", nested
		case 2:
			fflags, _ := r.next()
			r.next() // unpacked size
			r.next() // attributes
			if fflags&2 != 0 {
				r.pos += 4
			}
			if fflags&4 != 0 {
				r.pos += 4
			}
			r.next() // compression
			r.next() // host OS
			nameLen, _ := r.next()
			if r.pos+int(nameLen) <= end && nested == "" && archiveName(string(data[r.pos:r.pos+int(nameLen)])) {
				nested = string(data[r.pos : r.pos+int(nameLen)])
			}
			if extra > 0 && extra <= hsize && encrypted == "" {
				x := &vintReader{b: data[:end], pos: end - int(extra)}
				for x.pos < end {
					size, ok := x.next()
					if !ok || size == 0 {
						break
					}
					recEnd := x.pos + int(size)
					if rt, _ := x.next(); rt == 1 {
						encrypted = "rar5 entry is encrypted"
						break
					}
					x.pos = recEnd
				}
			}
		}
		next := end + int(dataSize)
		if next <= pos || dataSize > uint64(len(data)) {
			break
		}
		pos = next
	}
	return encrypted, nested
}

// vintReader reads RAR 5's variable-length integers.
type vintReader struct {
	b   []byte
	pos int
}

func (r *vintReader) next() (uint64, bool) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.pos < 0 || r.pos >= len(r.b) {
			return 0, false
		}
		c := r.b[r.pos]
		r.pos++
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}
