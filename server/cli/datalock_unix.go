//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDataFolder keeps a second serve process off an SQLite data folder: both would run the
// background jobs, and each would take the other's claimed work for a dead process's. The lock is
// the operating system's (flock), so it ends with the process, however it ends.
func lockDataFolder(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, "serve.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			abs, _ := filepath.Abs(dir)
			return nil, fmt.Errorf("another einvoice process is serving the data folder %s "+
				"(several processes need storage.driver = \"postgres\")", abs)
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
