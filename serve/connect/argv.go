package connect

import (
	"errors"
	"fmt"
	"strings"
)

// Cursor is the placeholder of the last event id in a connector's
// command or URL.
const Cursor = "{cursor}"

// ParseExec splits an exec: connector's command into the words its
// program is run with, no shell between (decided): words are separated
// by spaces; 'single' and "double" quotes make literal text (spaces
// included; in double quotes \" and \\ stand for " and \). {cursor},
// unquoted, stands for the cursor: the word holding it becomes one
// argument with the cursor's text in its place, whatever that text is
// (quotes, $(...), backquotes stay what they are). The program also finds
// it in the environment variable PROSE_CURSOR.
//
// Refused, with what to do instead: a quoted placeholder (it would be the
// literal text, and in a shell the quotes were never a defense), another
// {name} than {cursor} outside quotes, and the characters a shell reads
// as syntax outside quotes (| & ; < > ( ) $ ` \ and line breaks): a
// pipeline or a redirection belongs in a script the command names.
func ParseExec(command string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'' || c == '"':
			end := i + 1
			var lit strings.Builder
			for ; end < len(command) && command[end] != c; end++ {
				if c == '"' && command[end] == '\\' && end+1 < len(command) && (command[end+1] == '"' || command[end+1] == '\\') {
					end++
				}
				lit.WriteByte(command[end])
			}
			if end == len(command) {
				return nil, fmt.Errorf("a %c quote is not closed", c)
			}
			if strings.Contains(lit.String(), Cursor) {
				return nil, fmt.Errorf("%s is quoted: write it bare, it reaches the program as one argument as it is, whatever it holds", Cursor)
			}
			cur.WriteString(lit.String())
			inWord = true
			i = end
		case strings.IndexByte("|&;<>()$`\\\n\r", c) >= 0:
			return nil, fmt.Errorf("%q is shell syntax, and exec: runs a program with its arguments, no shell between: put the pipeline or redirection in a script and name that", c)
		case c == '{':
			end := strings.IndexByte(command[i:], '}')
			if end < 0 || command[i:i+end+1] != Cursor {
				name := command[i:]
				if end >= 0 {
					name = command[i : i+end+1]
				}
				return nil, fmt.Errorf("unknown placeholder %s (the one there is: %s); quote it to pass it as text", name, Cursor)
			}
			cur.WriteString(Cursor)
			inWord = true
			i += end
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("no program named")
	}
	if strings.Contains(words[0], Cursor) {
		return nil, fmt.Errorf("the program's own name holds %s: name a program, and pass the cursor as its argument", Cursor)
	}
	return words, nil
}

// argv is words with cursor in place of each placeholder.
func argv(words []string, cursor string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strings.ReplaceAll(w, Cursor, cursor)
	}
	return out
}
