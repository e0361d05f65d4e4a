package bind

import (
	"fmt"
	"strings"

	"github.com/proselang/prose/execsvc"
)

// Programs looked up in PATH are checked before the run (decided): when an
// exec: command starts with a plain word (`jq .x`, `python3 review.py`),
// that word must be a program in PATH or a shell builtin, else every call
// would fail with the shell's "not found", found only at the first call
// after earlier calls ran. Commands starting with a path are checked by
// execsvc.CheckProgram; a variable, quotes, an assignment or other shell
// syntax is not guessed at.

// shellWords are the words /bin/sh understands without looking in PATH:
// its builtins and reserved words.
var shellWords = map[string]bool{
	":": true, ".": true, "[": true, "alias": true, "bg": true, "break": true, "cd": true, "command": true,
	"continue": true, "echo": true, "eval": true, "exec": true, "exit": true, "export": true, "false": true,
	"fg": true, "getopts": true, "hash": true, "jobs": true, "kill": true, "local": true, "printf": true,
	"pwd": true, "read": true, "readonly": true, "return": true, "set": true, "shift": true, "test": true,
	"times": true, "trap": true, "true": true, "type": true, "ulimit": true, "umask": true, "unalias": true,
	"unset": true, "wait": true, "if": true, "for": true, "while": true, "until": true, "case": true,
	"!": true, "{": true, "source": true,
}

// checkOnPath reports a command whose first word is a plain name that is
// neither a shell builtin nor found by lookPath.
func checkOnPath(lookPath func(string) (string, error), dir, command string) error {
	fields := strings.Fields(command)
	if len(fields) == 0 {
		return nil
	}
	word := fields[0]
	if shellWords[word] || strings.Contains(word, "/") || strings.ContainsAny(word, "'\"\\$`;|&<>(){}*?[]=~#!") {
		return nil
	}
	if _, err := lookPath(word); err != nil {
		if _, ok := execsvc.BesideFile(dir, command); ok {
			return fmt.Errorf("exec:%s: the program %s is not in PATH, and the shell looks for a bare name nowhere else: to run the file %s here, write exec:./%s", command, word, word, strings.TrimSpace(command))
		}
		return fmt.Errorf("exec:%s: the program %s is not in PATH (install it, or bind the slot to its full path)", command, word)
	}
	return nil
}
