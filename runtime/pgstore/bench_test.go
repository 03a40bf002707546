package pgstore

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/clawseed/clawseed/providers"
	"github.com/clawseed/clawseed/runtime/session"
)

// benchStore is what the benchmarks use of a session store.
type benchStore interface {
	Create(h session.Header) *session.Writer
	Open(ctx context.Context, id string) (*session.Writer, *session.Session, error)
}

// BenchmarkStores measures, on the files and on PostgreSQL, what a turn
// costs the store: recording one message (the agent records each as it
// happens), and opening a session of 20 messages for a turn and closing it
// (what a server replica does per turn).
func BenchmarkStores(b *testing.B) {
	stores := []struct {
		name string
		new  func(b *testing.B) benchStore
	}{
		{"files", func(b *testing.B) benchStore {
			return session.Files{Store: &session.Store{Dir: filepath.Join(b.TempDir(), "s")}}
		}},
		{"postgres", func(b *testing.B) benchStore {
			db, err := Open(context.Background(), pg.Database(b), 4)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(db.Close)
			if _, err := db.Migrate(context.Background()); err != nil {
				b.Fatal(err)
			}
			return db.Sessions()
		}},
	}
	for _, st := range stores {
		b.Run(st.name+"/record", func(b *testing.B) {
			s := st.new(b)
			w := s.Create(session.Header{ID: "20261122-031937-bbbbbb", Workspace: "/ws"})
			defer w.Close()
			m := providers.AssistantText("an answer of some length, as a model writes it. ")
			for b.Loop() {
				if err := w.RecordMessage(m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(st.name+"/open-close", func(b *testing.B) {
			s := st.new(b)
			const id = "20261122-031937-cccccc"
			w := s.Create(session.Header{ID: id, Workspace: "/ws"})
			for i := range 20 {
				if err := w.RecordMessage(providers.UserText(fmt.Sprintf("message %d", i))); err != nil {
					b.Fatal(err)
				}
			}
			w.Close()
			for b.Loop() {
				w, _, err := s.Open(context.Background(), id)
				if err != nil {
					b.Fatal(err)
				}
				w.Close()
			}
		})
	}
}
