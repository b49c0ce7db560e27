// Package redistest runs a real redis-server (Debian's redis-server
// package) on a free loopback port for tests, and stops it at the end.
//
// When the binary is missing the test is skipped with a message saying how
// to install it, unless the CI environment variable is set: then it fails,
// so that CI never passes by skipping. .ci/run installs the package.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary is the server the tests run.
const Binary = "redis-server"

// Server is one redis-server process. Kill and Start stop and start it
// again on the same port (the data is not kept: no persistence). Safe for
// concurrent use.
type Server struct {
	Addr string
	t    testing.TB
	dir  string
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start starts a redis-server on a free loopback port with a temporary
// directory, waits until it answers PING, and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	path, err := exec.LookPath(Binary)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("redistest: %s is not installed, and CI is set: .ci/run installs it (apt-get install -y redis-server)", Binary)
		}
		t.Skipf("redistest: %s is not installed (apt-get install -y redis-server); skipping the tests that need a real Redis", Binary)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: finding a free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &Server{Addr: addr, t: t, dir: t.TempDir()}
	if err := s.start(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Kill)
	return s
}

func (s *Server) start(path string) error {
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command(path, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--daemonize", "no", "--loglevel", "warning", "--logfile", filepath.Join(s.dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("redistest: starting %s: %w", path, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if ping(s.Addr) == nil {
			return nil
		}
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			return fmt.Errorf("redistest: redis-server exited at start: %s", strings.TrimSpace(string(log)))
		default:
		}
		if time.Now().After(deadline) {
			s.Kill()
			return fmt.Errorf("redistest: redis-server on %s did not answer within 20s", s.Addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping sends PING and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// Kill kills the server process (SIGKILL, as a crash would) and waits for
// it to exit. Killing a server that is not running does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGCONT) // a paused server must not stay stopped
	cmd.Process.Kill()
	<-done
}

// Pause stops the server process (SIGSTOP): it keeps its connections and
// its data but answers nothing, as a Redis stalled by a long command, a
// fork or a swapping host would. Resume lets it go on (SIGCONT).
func (s *Server) Pause() { s.signal(syscall.SIGSTOP) }

// Resume continues a paused server.
func (s *Server) Resume() { s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig os.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		s.cmd.Process.Signal(sig)
	}
}

// Restart starts the server again on the same address, empty.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	path, err := exec.LookPath(Binary)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.start(path); err != nil {
		s.t.Fatal(err)
	}
}
