package main

// The build-time check of internals.go's //go:linkname declarations: the linker resolves a pulled symbol by name
// only, so a release that changed a linked method's parameters would still link, and the adapter would then pass
// wrong arguments to Kubernetes' code. This test type-checks, from the release's own Go source, the packages
// every linked function lives in, and compares each declaration of this build with the function it names.
//
//	go test -run TestLinkedSignatures .                                       # v1.35 (go.mod)
//	go test -tags k8s_v1_37 -modfile go.v1.37.mod -run TestLinkedSignatures .  # v1.37 (the Makefile runs each)

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// listedPackage is what `go list -json -export -deps` says of one package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
}

// linkTarget is a parsed //go:linkname target: "pkg.Func", "pkg.(*T).Method" or "pkg.T.Method".
type linkTarget struct {
	pkg, receiver, name string
	pointer             bool
}

var (
	methodTarget = regexp.MustCompile(`^(.+)\.\((\*?)(\w+)\)\.(\w+)$`)
	valueTarget  = regexp.MustCompile(`^(.+)\.(\w+)\.(\w+)$`)
	funcTarget   = regexp.MustCompile(`^(.+)\.(\w+)$`)
)

func parseTarget(s string) (linkTarget, error) {
	if m := methodTarget.FindStringSubmatch(s); m != nil {
		return linkTarget{pkg: m[1], receiver: m[3], name: m[4], pointer: m[2] == "*"}, nil
	}
	if m := funcTarget.FindStringSubmatch(s); m != nil && !strings.Contains(m[1][strings.LastIndex(m[1], "/")+1:], ".") {
		return linkTarget{pkg: m[1], name: m[2]}, nil
	}
	if m := valueTarget.FindStringSubmatch(s); m != nil {
		return linkTarget{pkg: m[1], receiver: m[2], name: m[3]}, nil
	}
	return linkTarget{}, fmt.Errorf("cannot parse the linkname target %q", s)
}

// goList runs go list for this build (its release's tags and module file, read from the release file's constants).
func goList(t *testing.T) map[string]listedPackage {
	t.Helper()
	args := []string{"list", "-json", "-export", "-deps"}
	if releaseTag != "" {
		args = append(args, "-tags", releaseTag)
	}
	args = append(args, "-modfile", modFile, ".")
	cmd := exec.Command("go", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	packages := map[string]listedPackage{}
	for decoder := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := decoder.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("reading go list's output: %v", err)
		}
		packages[p.ImportPath] = p
	}
	return packages
}

func parseFiles(t *testing.T, fset *token.FileSet, p listedPackage) []*ast.File {
	t.Helper()
	var files []*ast.File
	for _, name := range p.GoFiles {
		file, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatalf("parsing %s: %v", name, err)
		}
		files = append(files, file)
	}
	return files
}

// linknames are the //go:linkname directives of files: local name -> target.
func linknames(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, file := range files {
		for _, group := range file.Comments {
			for _, comment := range group.List {
				scanner := bufio.NewScanner(strings.NewReader(comment.Text))
				for scanner.Scan() {
					if fields := strings.Fields(scanner.Text()); len(fields) == 3 && fields[0] == "//go:linkname" {
						out[fields[1]] = fields[2]
					}
				}
			}
		}
	}
	return out
}

// sameParameter says whether a declared parameter or result can stand for the target's: the identical type, or
// unsafe.Pointer for any pointer type (the adapter passes pointers to unexported types that way). A type of the
// target's own package (*scheduler.Scheduler) is, on the adapter's side, the one from export data and, on the
// target's, the one type-checked from source: two objects for one type, the same when their package-qualified
// spelling is.
func sameParameter(declared, target types.Type) bool {
	if types.Identical(declared, target) || types.TypeString(declared, nil) == types.TypeString(target, nil) {
		return true
	}
	if basic, ok := declared.(*types.Basic); ok && basic.Kind() == types.UnsafePointer {
		_, isPointer := target.Underlying().(*types.Pointer)
		return isPointer
	}
	return false
}

func tupleTypes(tuple *types.Tuple) []types.Type {
	var out []types.Type
	for i := 0; i < tuple.Len(); i++ {
		out = append(out, tuple.At(i).Type())
	}
	return out
}

// checkSignature compares a declaration with the function or method it links to; "" if they agree, else why not.
func checkSignature(declared *types.Signature, target *types.Func) string {
	signature := target.Type().(*types.Signature)
	params := tupleTypes(signature.Params())
	if receiver := signature.Recv(); receiver != nil {
		params = append([]types.Type{receiver.Type()}, params...)
	}
	declaredParams := tupleTypes(declared.Params())
	if len(declaredParams) != len(params) || declared.Variadic() != signature.Variadic() {
		return fmt.Sprintf("declared %s, but %s is %s", declared, target.FullName(), signature)
	}
	for i := range params {
		if !sameParameter(declaredParams[i], params[i]) {
			return fmt.Sprintf("parameter %d: declared %s, but %s takes %s", i, declaredParams[i], target.FullName(), params[i])
		}
	}
	results, declaredResults := tupleTypes(signature.Results()), tupleTypes(declared.Results())
	if len(results) != len(declaredResults) {
		return fmt.Sprintf("declared results %s, but %s returns %s", declared.Results(), target.FullName(), signature.Results())
	}
	for i := range results {
		if !sameParameter(declaredResults[i], results[i]) {
			return fmt.Sprintf("result %d: declared %s, but %s returns %s", i, declaredResults[i], target.FullName(), results[i])
		}
	}
	return ""
}

// lookupTarget finds the linked function in the type-checked package.
func lookupTarget(pkg *types.Package, target linkTarget) (*types.Func, error) {
	if target.receiver == "" {
		if f, ok := pkg.Scope().Lookup(target.name).(*types.Func); ok {
			return f, nil
		}
		return nil, fmt.Errorf("%s has no function %s", pkg.Path(), target.name)
	}
	named, ok := pkg.Scope().Lookup(target.receiver).(*types.TypeName)
	if !ok {
		return nil, fmt.Errorf("%s has no type %s", pkg.Path(), target.receiver)
	}
	var receiver types.Type = named.Type()
	if target.pointer {
		receiver = types.NewPointer(receiver)
	}
	object, _, _ := types.LookupFieldOrMethod(receiver, false, pkg, target.name)
	method, ok := object.(*types.Func)
	if !ok {
		return nil, fmt.Errorf("%s has no method %s", receiver, target.name)
	}
	if _, pointerReceiver := method.Type().(*types.Signature).Recv().Type().(*types.Pointer); pointerReceiver != target.pointer {
		return nil, fmt.Errorf("%s's receiver is %s, not as linked", method.FullName(), method.Type().(*types.Signature).Recv().Type())
	}
	return method, nil
}

func TestLinkedSignatures(t *testing.T) {
	packages := goList(t)
	fset := token.NewFileSet()
	imports := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		p, ok := packages[path]
		if !ok || p.Export == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(p.Export)
	})
	adapterFiles := parseFiles(t, fset, packages[mainPackagePath(t, packages)])
	adapter, err := (&types.Config{Importer: imports}).Check("main", fset, adapterFiles, nil)
	if err != nil {
		t.Fatalf("type-checking the adapter: %v", err)
	}
	links := linknames(adapterFiles)
	if len(links) == 0 {
		t.Fatal("no //go:linkname directive found in the adapter's files")
	}
	checked := map[string]*types.Package{}
	for local, targetName := range links {
		declaredFunc, ok := adapter.Scope().Lookup(local).(*types.Func)
		if !ok {
			t.Errorf("//go:linkname %s: no function %s in the adapter", local, local)
			continue
		}
		target, err := parseTarget(targetName)
		if err != nil {
			t.Error(err)
			continue
		}
		pkg, ok := checked[target.pkg]
		if !ok {
			listed, found := packages[target.pkg]
			if !found {
				t.Errorf("%s links to %s, which this build does not import", local, target.pkg)
				continue
			}
			// The target package from its source, with its imports from export data: unexported types and
			// methods are then all visible.
			pkg, err = (&types.Config{Importer: imports}).Check(target.pkg, fset, parseFiles(t, fset, listed), nil)
			if err != nil {
				t.Fatalf("type-checking %s: %v", target.pkg, err)
			}
			checked[target.pkg] = pkg
		}
		function, err := lookupTarget(pkg, target)
		if err != nil {
			t.Errorf("%s (//go:linkname %s): %v", local, targetName, err)
			continue
		}
		if why := checkSignature(declaredFunc.Type().(*types.Signature), function); why != "" {
			t.Errorf("%s (//go:linkname %s): %s", local, targetName, why)
		}
	}
	t.Logf("Kubernetes %s: %d linked functions checked", kubernetesVersion, len(links))
}

func mainPackagePath(t *testing.T, packages map[string]listedPackage) string {
	t.Helper()
	for path, p := range packages {
		if wd, _ := os.Getwd(); p.Dir == wd {
			return path
		}
	}
	t.Fatal("go list did not list the adapter's own package")
	return ""
}

// TestSignatureCheckRejectsMismatch shows the comparison fails where it must: a wrong parameter type, a missing
// parameter, a wrong result, a value where a pointer is linked.
func TestSignatureCheckRejectsMismatch(t *testing.T) {
	const source = `package p
import "unsafe"
type impl struct{}
func (c *impl) method(n int, s string) error { return nil }
func declaredRight(c unsafe.Pointer, n int, s string) error
func declaredWrongType(c unsafe.Pointer, n int64, s string) error
func declaredMissing(c unsafe.Pointer, n int) error
func declaredWrongResult(c unsafe.Pointer, n int, s string)
func declaredValueReceiver(c int, n int, s string) error
`
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", source, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	method, err := lookupTarget(pkg, linkTarget{pkg: "p", receiver: "impl", name: "method", pointer: true})
	if err != nil {
		t.Fatal(err)
	}
	signature := func(name string) *types.Signature { return pkg.Scope().Lookup(name).Type().(*types.Signature) }
	if why := checkSignature(signature("declaredRight"), method); why != "" {
		t.Errorf("a matching declaration was rejected: %s", why)
	}
	for _, name := range []string{"declaredWrongType", "declaredMissing", "declaredWrongResult", "declaredValueReceiver"} {
		if checkSignature(signature(name), method) == "" {
			t.Errorf("%s was accepted", name)
		}
	}
	if _, err := lookupTarget(pkg, linkTarget{pkg: "p", receiver: "impl", name: "gone", pointer: true}); err == nil {
		t.Error("a method the package does not have was found")
	}
	if _, err := lookupTarget(pkg, linkTarget{pkg: "p", receiver: "impl", name: "method"}); err == nil {
		t.Error("a pointer-receiver method was accepted as linked with a value receiver")
	}
}
