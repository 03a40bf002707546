package main

import (
	"github.com/clawseed/clawseed/cmd/clawseed/internal/app"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/clawseed/clawseed/providers/providertest"
)

func benchInProc(b *testing.B, n int) {
	e := newBenchEnv(b, n, "")
	b.Setenv("HOME", e.home)
	b.Setenv("CLAWSEED_HOME", e.clawHome)
	b.Chdir(e.ws)
	for b.Loop() {
		e.srv.SetScript([]providertest.Response{{Text: "ok"}})
		if code := run([]string{"run", "hi"}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
func BenchmarkInProc0(b *testing.B)     { benchInProc(b, 0) }
func BenchmarkInProc1000(b *testing.B)  { benchInProc(b, 1000) }
func BenchmarkInProc10000(b *testing.B) { benchInProc(b, 10000) }

func BenchmarkHeapAfterBuild10000(b *testing.B) {
	e := newBenchEnv(b, 10000, "")
	b.Setenv("HOME", e.home)
	b.Setenv("CLAWSEED_HOME", e.clawHome)
	b.Chdir(e.ws)
	e.srv.SetScript([]providertest.Response{{Text: "ok"}})
	run([]string{"run", "hi"}, strings.NewReader(""), io.Discard, io.Discard)
	time.Sleep(3 * time.Second)
	run([]string{"run", "hi"}, strings.NewReader(""), io.Discard, io.Discard)
	g := &globalOptions{proc: &app.Process{}}
	for b.Loop() {
		cfg, err := loadConfig(g, io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var m0 runtime.MemStats
		runtime.ReadMemStats(&m0)
		s, err := app.Build(b.Context(), cfg, app.Options{Log: slog.New(slog.DiscardHandler), Process: g.proc})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		var m1 runtime.MemStats
		runtime.ReadMemStats(&m1)
		b.ReportMetric(float64(m1.HeapAlloc-m0.HeapAlloc)/(1<<20), "live-MB")
		f, _ := os.Create("/tmp/heap10k.prof")
		pprof.WriteHeapProfile(f)
		f.Close()
		s.Shutdown()
	}
}

func benchAB(b *testing.B, n int) {
	bins := []string{"/tmp/csbin/clawseed", "/tmp/csnew/clawseed"}
	var envs []*benchEnv
	for _, bin := range bins {
		e := newBenchEnv(b, n, "")
		e.bin = bin
		e.srv.SetScript([]providertest.Response{{Text: "ok"}})
		if out, err := e.cmd("run", "hi").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		envs = append(envs, e)
	}
	floor := buildProgram(b, skillFloor)
	var floors []time.Duration
	times := make([][]time.Duration, len(bins))
	for b.Loop() {
		f, _ := startProcess(b, envs[0].srv, exec.Command(floor, envs[0].srv.URL(), envs[0].list))
		floors = append(floors, f)
		for i, e := range envs {
			t, _ := startProcess(b, e.srv, e.cmd("run", "hi"))
			times[i] = append(times[i], t)
		}
	}
	b.ReportMetric(ms(median(floors)), "floor-ms")
	b.ReportMetric(ms(median(times[0])), "old-ms")
	b.ReportMetric(ms(median(times[1])), "new-ms")
}
func BenchmarkAB0(b *testing.B)     { benchAB(b, 0) }
func BenchmarkAB1000(b *testing.B)  { benchAB(b, 1000) }
func BenchmarkAB10000(b *testing.B) { benchAB(b, 10000) }

func BenchmarkInProcChat10000(b *testing.B) { benchInProcChat(b, 10000) }
func BenchmarkInProcChat1000(b *testing.B)  { benchInProcChat(b, 1000) }
func benchInProcChat(b *testing.B, n int) {
	e := newBenchEnv(b, n, "")
	b.Setenv("HOME", e.home)
	b.Setenv("CLAWSEED_HOME", e.clawHome)
	b.Chdir(e.ws)
	for b.Loop() {
		e.srv.SetScript([]providertest.Response{{Text: "ok"}})
		if code := run([]string{"chat"}, strings.NewReader("\n"), io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
