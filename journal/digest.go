package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/proselang/prose/delegation"
)

// Argument digests.
//
// A call's "args" is a digest of its arguments that costs work in
// proportion to what changed since the slot's previous call, not to the
// size of the arguments: a ratchet passes its whole certified progress to
// every proposal, one step longer each time. It is defined (FORMAT.md) as
// the sha256 of, for each argument in order, its name as JSON, ':', the
// hex digest of its value, and ','. The digest of a list is a chain over
// its elements (delegation.ChainSum): c0 = sha256("[]"), c(k) =
// sha256(c(k-1) || sha256(JSON of element k)), the digest of a list of n
// elements being c(n); any other value's digest is the sha256 of its JSON
// (delegation.Sum). Both are remembered by frozen values, and a frozen
// list that extends an earlier frozen copy continues its chain: the work
// is in the new elements.

// argsDigest is the digest of a call's arguments. longSum, when set,
// gives the Sum of a long string argument (blobStore.sumOf).
func argsDigest(args *delegation.Object, longSum func(string) ([32]byte, bool)) string {
	h := sha256.New()
	if args != nil {
		var buf [64 + 2*sha256.Size + 2]byte // a name, then a digest, without allocating
		for _, k := range args.Keys() {
			v, _ := args.Get(k)
			b := strconv.AppendQuote(buf[:0], k)
			h.Write(append(b, ':'))
			var sum [32]byte
			if l, ok := v.(*delegation.List); ok {
				sum = delegation.ChainSum(l)
			} else if s, ok := v.(string); !ok || longSum == nil || len(s) < LongStringMin {
				sum = valueSum(v)
			} else if sum, ok = longSum(s); !ok {
				sum = valueSum(v)
			}
			x := hex.AppendEncode(buf[:0], sum[:])
			h.Write(append(x, ','))
		}
	}
	var d [sha256.Size]byte
	return hex.EncodeToString(h.Sum(d[:0]))
}

func valueSum(v delegation.Value) [32]byte {
	s, err := delegation.Sum(v)
	if err != nil {
		return sha256.Sum256([]byte("<" + err.Error() + ">"))
	}
	return s
}
