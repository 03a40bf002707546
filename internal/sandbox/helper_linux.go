//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// The helper runs in two stages when it has namespaces ([Sandbox.wrap]).
// The first runs as root in a user namespace of its own (mapped to the
// user by itself, [mapSelf], with the capabilities clawseed passed it as
// ambient ones), since only a process with capabilities there may mount:
// it binds the read-only paths and hides the denied ones. It then starts
// the second stage — the helper again — in a nested user namespace, where
// it is the user again, and a new mount namespace: the mounts copied into
// it are locked (a namespace owned by a less privileged user namespace may
// not unmount them one by one, nor make them writable again), and the
// second stage, executed as a user other than root there, keeps no
// capability. It confines its thread with Landlock and executes the
// command, or serves forks, so no command ever holds a capability with
// which to undo the mounts. Executing the command straight from the first
// stage would keep root's capabilities in the namespace; mapping the user
// to itself in one namespace leaves the helper no capability to mount.

// HelperMain is the helper ([HelperArg]): args are its arguments after
// the program name — HelperArg, the command's path, then its argument
// vector. It reads the policy; in the first stage it makes the mounts and
// starts the second; otherwise it confines its thread and executes the
// command in its place. It returns only on failure, with 126 (127 when the
// command does not exist), or in the first stage with the second's status.
func HelperMain(args []string) int {
	runtime.LockOSThread()
	if len(args) < 3 || args[0] != HelperArg {
		fmt.Fprintln(os.Stderr, "clawseed sandbox: bad helper arguments")
		return 126
	}
	f := os.NewFile(helperPolicyFD, "policy")
	var pol helperPolicy
	err := json.NewDecoder(f).Decode(&pol)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "clawseed sandbox: read the policy: %v\n", err)
		return 126
	}
	if pol.Outer {
		return outerStage(pol)
	}
	if pol.Serve {
		return serve(pol)
	}
	if err := restrictThread(pol.ABI, pol.Rules, pol.Network); err != nil {
		fmt.Fprintf(os.Stderr, "clawseed sandbox: %v\n", err)
		return 126
	}
	if pol.Probe != "" {
		return probeAnswer(pol.Probe)
	}
	target, argv := args[1], args[2:]
	err = syscall.Exec(target, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "clawseed sandbox: %s: %v\n", target, err)
	if errors.Is(err, syscall.ENOENT) {
		return 127
	}
	return 126
}

// outerStage is the first stage: the mounts, then the second stage in a
// nested user and mount namespace, mapped back to the user (pol.UID,
// pol.GID outside). A fork server's second stage is started as this
// process's sibling (CLONE_PARENT), clawseed's child like the processes it
// forks, and says its pid itself; this stage then ends. Otherwise this
// stage waits for the second, passes it the signals it gets, and ends as
// it ended: the caller (the MCP library, the probe) waits for this one.
func outerStage(pol helperPolicy) int {
	fail := func(err error) int {
		if pol.Serve {
			hello(forkReply{Err: err.Error()})
		}
		fmt.Fprintf(os.Stderr, "clawseed sandbox: %v\n", err)
		return 126
	}
	if err := mapSelf(pol.UID, pol.GID); err != nil {
		return fail(err)
	}
	if err := setupMounts(pol); err != nil {
		return fail(err)
	}
	pol.Outer = false
	policy, err := policyFile(pol)
	if err != nil {
		return fail(err)
	}
	defer policy.Close()
	files := []uintptr{0, 1, 2, policy.Fd()}
	if pol.Serve {
		files = append(files, forkServerFD)
	}
	attr := &syscall.SysProcAttr{
		Cloneflags:  unix.CLONE_NEWUSER | unix.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: pol.UID, HostID: 0, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: pol.GID, HostID: 0, Size: 1}},
	}
	if pol.Serve {
		attr.Cloneflags |= unix.CLONE_PARENT
	} else {
		// The second stage dies with this one: the caller may kill it.
		attr.Pdeathsig = syscall.SIGKILL
	}
	// Signals to pass on are caught before the second stage can miss one.
	sigs := make(chan os.Signal, 8)
	if !pol.Serve {
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	}
	pid, err := syscall.ForkExec("/proc/self/exe", os.Args, &syscall.ProcAttr{Env: os.Environ(), Files: files, Sys: attr})
	if err != nil {
		return fail(fmt.Errorf("start the nested namespace: %w", err))
	}
	if pol.Serve {
		return 0
	}
	go func() {
		for s := range sigs {
			syscall.Kill(pid, s.(syscall.Signal))
		}
	}()
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if ws.Signaled() {
		// End as the second stage ended, killed by the same signal.
		signal.Reset(ws.Signal())
		syscall.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// mapSelf makes the user (uid, gid outside) root in this process's user
// namespace, as `unshare --map-root-user` does: the one mapping a user may
// make without privilege outside, written by the process itself while it
// holds capabilities in the namespace.
func mapSelf(uid, gid int) error {
	for _, w := range []struct{ file, data string }{
		{"/proc/self/setgroups", "deny"}, // before gid_map, which needs it
		{"/proc/self/uid_map", fmt.Sprintf("0 %d 1", uid)},
		{"/proc/self/gid_map", fmt.Sprintf("0 %d 1", gid)},
	} {
		f, err := os.OpenFile(w.file, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("map the user: %w", err)
		}
		_, err = f.WriteString(w.data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("map the user: %s: %w", w.file, err)
		}
	}
	return nil
}

// policyFile returns an anonymous memory file holding pol, at its start,
// for a helper to read at [helperPolicyFD].
func policyFile(pol helperPolicy) (*os.File, error) {
	data, err := json.Marshal(pol)
	if err != nil {
		return nil, err
	}
	fd, err := unix.MemfdCreate("clawseed-sandbox-policy", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "policy")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("write the policy: %w", err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// probeAnswer prints "ok" when file, bound read-only, cannot be written.
func probeAnswer(file string) int {
	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err == nil {
		f.Close()
		fmt.Println("the read-only bind did not hold")
		return 1
	}
	if !errors.Is(err, syscall.EROFS) {
		fmt.Println(err)
		return 1
	}
	fmt.Println("ok")
	return 0
}

// helperEnv is the environment of a helper clawseed starts itself (the
// fork server, the probe): nothing of the user's, but GORACE, which only a
// race-detector build reads — its tests set atexit_sleep_ms=0, without
// which every such process would sleep a second at exit.
func helperEnv() []string {
	if v, ok := os.LookupEnv("GORACE"); ok {
		return []string{"GORACE=" + v}
	}
	return []string{}
}
