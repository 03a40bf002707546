package mdterm

import "strings"

type Options struct {
	Width int
	Color bool
}

func Render(src string, o Options) string { return src }

type Stream struct{ buf strings.Builder }

func (s *Stream) Write(delta string) string {
	s.buf.WriteString(delta)
	t := s.buf.String()
	i := strings.LastIndex(t, "\n\n")
	if i < 0 {
		return ""
	}
	s.buf.Reset()
	s.buf.WriteString(t[i+2:])
	return t[:i+2]
}
func (s *Stream) Pending() string { return s.buf.String() }
func (s *Stream) Flush() string   { t := s.buf.String(); s.buf.Reset(); return t }
