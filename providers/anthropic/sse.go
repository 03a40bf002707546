package anthropic

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxEventSize bounds one server-sent event (and one line of it): a server
// that never ends a line must not grow the buffer without limit. Real
// events are a few hundred bytes; a tool's input arrives in many small
// deltas.
const maxEventSize = 32 << 20

var errEventTooLarge = errors.New("server-sent event larger than 32 MiB")

// An sseReader splits a text/event-stream body into events. Only the
// fields the Messages API uses are kept: "event" and "data" (several data
// lines are joined with "\n"); "id", "retry" and comments are skipped.
type sseReader struct {
	r     *bufio.Reader
	event []byte
	data  []byte
	line  []byte // a line longer than the bufio buffer, reassembled
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 16<<10)}
}

// next returns the next event's name and data, valid until the following
// call. At the end of the body it returns io.EOF; an event not yet closed
// by a blank line when the body ends is returned first (its data must
// still parse, so a cut one is caught there).
func (s *sseReader) next() (event, data []byte, err error) {
	s.event, s.data = s.event[:0], s.data[:0]
	pending, dataLines := false, 0
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && pending {
				return s.event, s.data, nil
			}
			return nil, nil, err
		}
		if len(line) == 0 {
			if pending {
				return s.event, s.data, nil
			}
			continue
		}
		name, value, _ := bytes.Cut(line, []byte{':'})
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "event":
			s.event = append(s.event[:0], value...)
			pending = true
		case "data":
			if len(s.data)+len(value) > maxEventSize {
				return nil, nil, errEventTooLarge
			}
			if dataLines > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			pending = true
			dataLines++
		}
	}
}

// readLine returns the next line without its "\n" or "\r\n".
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.line = append(s.line[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(s.line) > maxEventSize {
				return nil, errEventTooLarge
			}
			line, err = s.r.ReadSlice('\n')
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	if err == io.EOF && len(line) > 0 {
		err = nil // a last line without a newline
	}
	if err != nil {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), nil
}
