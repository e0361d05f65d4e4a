package temporal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/proselang/prose/internal/keyfile"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	tsdk "go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"
)

// What the Temporal engine stores.
//
// A run's history on the cluster holds every payload of the run: the
// Request (spec sources, bindings with their commands, config, inputs),
// each call's arguments and value, each judgment's values and verdict,
// the result, and the messages of failures. The local journal withholds
// secrets from what it keeps (a NAME=VALUE assignment whose name says
// secret inside an exec binding, a secret-named input, text shaped like a
// key); a history cannot withhold them the same way, since a worker on
// another machine needs the very values to run the call, and nothing but
// the history carries them there.
//
// Decision: every payload and every failure message is encrypted before
// it leaves the process (a payload codec, AES-256-GCM, and the SDK's
// failure converter with its common attributes encoded), so that the
// server's database and its history API hold only ciphertext, and only
// processes holding the key (the starter, prose result, the workers)
// read them. What stays in clear is what Temporal itself needs: workflow
// and activity ids (call paths such as "chain[1]"), types, task queues,
// timers and timestamps. The key is 32 random bytes in hex in
// os.UserConfigDir()/prose/temporal.key (mode 0600), made on first use,
// or the file $PROSE_TEMPORAL_KEY_FILE names; every machine of a task
// queue must hold the same key (copy the file). A worker without it
// cannot read the runs: their workflow tasks fail (and are retried, so
// the runs wait intact) with an error naming the key file.
//
// Payloads written without the codec (histories recorded before it, a
// starter of another program) are read as they are.

// KeyFileEnv names the file of the payload key instead of the default.
const KeyFileEnv = "PROSE_TEMPORAL_KEY_FILE"

// encodingEncrypted is the metadata encoding of an encrypted payload.
const encodingEncrypted = "binary/prose-aes256gcm"

// metaKeyID names, in an encrypted payload's metadata, the key that
// sealed it (the first bytes of its SHA-256, never the key).
const metaKeyID = "prose-key-id"

// KeyFile is the file of the payload key: $PROSE_TEMPORAL_KEY_FILE when
// set, else temporal.key in the prose directory of os.UserConfigDir().
func KeyFile() (string, error) {
	p, err := keyfile.Path(KeyFileEnv, "temporal.key")
	if err != nil {
		return "", fmt.Errorf("no place for the Temporal payload key (%v): set %s to a file for it", err, KeyFileEnv)
	}
	return p, nil
}

// loadKey reads the payload key from path, creating it when there is
// none.
func loadKey(path string) ([]byte, error) {
	k, err := keyfile.Load(path, 32, 32)
	var ce *keyfile.CreateError
	switch {
	case err == nil:
		return k, nil
	case errors.Is(err, keyfile.ErrMalformed):
		return nil, fmt.Errorf("the Temporal payload key %s is not 32 bytes in hex (copy the key of the task queue's other machines there)", path)
	case errors.As(err, &ce):
		return nil, fmt.Errorf("creating the Temporal payload key %s: %w (set %s to a file for it)", path, ce.Err, KeyFileEnv)
	default:
		return nil, fmt.Errorf("reading the Temporal payload key: %w", err)
	}
}

// codec encrypts payloads with AES-256-GCM.
type codec struct {
	aead  cipher.AEAD
	keyID string
	file  string // where the key came from, for messages
}

func newCodec(key []byte, file string) (*codec, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(key)
	return &codec{aead: aead, keyID: hex.EncodeToString(sum[:4]), file: file}, nil
}

var _ converter.PayloadCodec = (*codec)(nil)

// Encode seals each payload whole (metadata and data), so that not even
// its encoding is left in clear.
func (c *codec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		nonce := make([]byte, c.aead.NonceSize(), c.aead.NonceSize()+len(plain)+c.aead.Overhead())
		if _, err := rand.Read(nonce); err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				converter.MetadataEncoding: []byte(encodingEncrypted),
				metaKeyID:                  []byte(c.keyID),
			},
			Data: c.aead.Seal(nonce, nonce, plain, nil),
		}
	}
	return out, nil
}

// Decode opens the payloads this codec sealed and passes others through.
func (c *codec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != encodingEncrypted {
			out[i] = p
			continue
		}
		data, n := p.GetData(), c.aead.NonceSize()
		if id := string(p.GetMetadata()[metaKeyID]); id != c.keyID || len(data) < n {
			return nil, fmt.Errorf("a payload of this run was encrypted with another key (id %s; this process's key, id %s, is %s): give every starter and worker of the task queue the same key file", id, c.keyID, c.file)
		}
		plain, err := c.aead.Open(nil, data[:n], data[n:], nil)
		if err != nil {
			return nil, fmt.Errorf("a payload of this run does not decrypt with the key %s: %v", c.file, err)
		}
		var q commonpb.Payload
		if err := proto.Unmarshal(plain, &q); err != nil {
			return nil, fmt.Errorf("a decrypted payload is not a payload: %v", err)
		}
		out[i] = &q
	}
	return out, nil
}

// converters returns the data and failure converters of a client that
// encrypts with the key of file.
func converters(file string) (converter.DataConverter, converter.FailureConverter, error) {
	key, err := loadKey(file)
	if err != nil {
		return nil, nil, err
	}
	c, err := newCodec(key, file)
	if err != nil {
		return nil, nil, err
	}
	dc := converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
	fc := tsdk.NewDefaultFailureConverter(tsdk.DefaultFailureConverterOptions{DataConverter: dc, EncodeCommonAttributes: true})
	return dc, fc, nil
}
