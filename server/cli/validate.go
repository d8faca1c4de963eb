package cli

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"einvoice/ubl"
)

// validateCmd is `einvoice validate [--profile P] [--json] [--lang pt|en] PATH...`. Folders are walked for
// *.xml. Files are validated on every core, and reported in the order given (a folder's files sorted by
// path). When a folder or several files are given, a totals line ends the report (on standard error with
// --json, so that standard output stays one JSON object a line). Exit 0 when no file is rejected, 1 when
// any is, 2 for usage or I/O errors.
func validateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profileName := fs.String("profile", "auto", "auto, cius-pt or peppol-order")
	asJSON := fs.Bool("json", false, "one JSON line per file")
	lang := fs.String("lang", "pt", "language of the messages: pt or en")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	profile, ok := ubl.ParseProfile(*profileName)
	if !ok || (*lang != "pt" && *lang != "en") || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: einvoice validate [--profile auto|cius-pt|peppol-order] [--json] [--lang pt|en] PATH...")
		return 2
	}
	// A batch of files keeps little alive from one file to the next: collecting garbage less often
	// (at five times the live heap, not twice) makes a folder of small files 7–20% faster for 10–40
	// MB more memory. GOGC, when set, decides.
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	files, folders, err := expand(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "einvoice validate:", err)
		return 2
	}
	code, rejected, started := 0, 0, time.Now()
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	stop := make(chan struct{})
	defer close(stop)
	i := 0
	for next := range validateFiles(files, profile, *lang, *asJSON, stop) {
		o, f := <-next, files[i]
		i++
		if o.err != nil {
			out.Flush()
			fmt.Fprintln(stderr, "einvoice validate:", o.err)
			return 2
		}
		if o.r.Rejected() {
			code = 1
			rejected++
		}
		if *asJSON {
			out.Write(*o.line)
			lineBuffers.Put(o.line)
			continue
		}
		printReport(out, f, o.r)
	}
	if len(files) > 1 || folders {
		totals := out
		if *asJSON {
			out.Flush()
			totals = bufio.NewWriter(stderr)
			defer totals.Flush()
		}
		noun := "files"
		if len(files) == 1 {
			noun = "file"
		}
		fmt.Fprintf(totals, "%d %s: %d accepted, %d rejected, in %s\n", len(files), noun, len(files)-rejected, rejected,
			time.Since(started).Round(time.Millisecond))
	}
	return code
}

// outcome is one file's result (and its JSON line, when asked for), or why it could not be read.
type outcome struct {
	r    *ubl.Result
	line *[]byte // from lineBuffers, given back once written
	err  error
}

// lineBuffers keeps the buffers JSON lines are written in, from the workers to the writer and back.
var lineBuffers = sync.Pool{New: func() any { return new([]byte) }}

// validation is a file for a worker, and where its outcome goes.
type validation struct {
	file string
	out  chan<- outcome
}

// validateFiles reads and validates the files with one worker per core, which also writes the JSON line
// of each when asJSON is set. It sends one channel per file, in the order of the files, on which that
// file's outcome arrives; at most twice as many files as there are workers wait to be written. Closing
// stop makes it give up on the files not yet started.
func validateFiles(files []string, profile ubl.Profile, lang string, asJSON bool, stop <-chan struct{}) <-chan chan outcome {
	workers := runtime.GOMAXPROCS(0)
	ordered := make(chan chan outcome, 2*workers)
	todo := make(chan validation, workers)
	go func() {
		defer close(ordered)
		defer close(todo)
		for _, f := range files {
			out := make(chan outcome, 1) // a worker never waits for the writer
			select {
			case ordered <- out:
			case <-stop:
				return
			}
			select {
			case todo <- validation{f, out}:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		go func() {
			for v := range todo {
				data, err := os.ReadFile(v.file)
				if err != nil {
					v.out <- outcome{err: err}
					continue
				}
				o := outcome{r: ubl.Validate(data, profile, lang)}
				if asJSON {
					line := lineBuffers.Get().(*[]byte)
					*line = append(appendJSONLine((*line)[:0], v.file, o.r), '\n')
					o.line = line
				}
				v.out <- o
			}
		}()
	}
	return ordered
}

// expand turns the arguments into files: a folder stands for its *.xml files, found recursively and
// named as the argument joined with their path inside it. folders tells whether any argument was one.
func expand(args []string) (out []string, folders bool, err error) {
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, false, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		folders = true
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".xml") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, false, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, folders, nil
}

func printReport(w io.Writer, file string, r *ubl.Result) {
	verdict := "valid"
	if r.Rejected() {
		verdict = "REJECTED"
	}
	root := "?"
	if r.Root != nil {
		root = *r.Root
	}
	fmt.Fprintf(w, "%s: %s (%s, profile %s, schema %s, %d fatal, %d warnings)\n", file, verdict, root, r.Profile,
		map[bool]string{true: "valid", false: "invalid"}[r.XSDValid], count(r.Fatal), count(r.Warning))
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %-7s %s  %s\n", f.Flag, f.Message, f.Location)
	}
}

func count(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
