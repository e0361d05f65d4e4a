package httpapi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// Loopback is judged by the address a listener bound: 127.0.0.1 is,
// every interface (an empty host) and another machine's address are not.
func TestBoundLoopback(t *testing.T) {
	ln, loop, err := ListenLoopback("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if !loop {
		t.Errorf("127.0.0.1 not taken for loopback")
	}
	if ln, loop, err := ListenLoopback(":0"); err == nil {
		ln.Close()
		if loop {
			t.Errorf("every interface (%s) taken for loopback", ln.Addr())
		}
	}
	for _, a := range []net.Addr{&net.TCPAddr{IP: net.ParseIP("10.0.0.1"), Port: 1}, &net.TCPAddr{IP: net.IPv6zero}, &net.UnixAddr{Name: "x"}} {
		if BoundLoopback(a) {
			t.Errorf("%v taken for loopback", a)
		}
	}
	if !BoundLoopback(&net.TCPAddr{IP: net.IPv6loopback}) {
		t.Errorf("::1 not taken for loopback")
	}
}

func TestBearerOK(t *testing.T) {
	for h, want := range map[string]bool{
		"Bearer s3cret": true, "bearer s3cret": true, "BeArEr s3cret": true, " Bearer  s3cret ": true,
		"Bearer s3cre": false, "Bearer s3cret2": false, "Basic s3cret": false, "s3cret": false, "": false, "Bearer": false,
	} {
		if got := BearerOK(h, "s3cret"); got != want {
			t.Errorf("BearerOK(%q) = %v, want %v", h, got, want)
		}
	}
}

// A client that sends its headers and then drips its body is cut off at
// the body's deadline: the handler's read fails and the connection
// closes. A request whose body came whole may take longer than the
// deadline to answer.
func TestBodyDeadline(t *testing.T) {
	const d = 200 * time.Millisecond
	readErr := make(chan error, 1)
	h := BodyDeadline(d, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		if r.URL.Path == "/slow-answer" {
			time.Sleep(3 * d) // after the body: the deadline no longer applies
			fmt.Fprint(w, "answered")
			return
		}
		readErr <- err
	}))
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /drip HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nx")
	stop := make(chan struct{})
	go func() { // one byte now and then, never the whole body
		for {
			select {
			case <-stop:
				return
			case <-time.After(d / 4):
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	defer close(stop)
	select {
	case err := <-readErr:
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the dripped body read as %v, want a deadline error", err)
		}
	case <-time.After(time.Minute): // a guard, not a measure
		t.Fatal("a dripping client held the request past its body deadline")
	}

	resp, err := http.Post("http://"+ln.Addr().String()+"/slow-answer", "text/plain", strings.NewReader("whole"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(bufio.NewReader(resp.Body))
	resp.Body.Close()
	if string(b) != "answered" {
		t.Errorf("a slow answer to a whole body read %q", b)
	}
}
