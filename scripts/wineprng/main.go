// Command wineprng writes bcryptprimitives.dll for a Wine that lacks it
// (Debian 12's Wine 8.0): a DLL whose only export, ProcessPrng, forwards
// to advapi32's SystemFunction036 (RtlGenRandom). Go programs since 1.24
// need ProcessPrng to start on Windows; with this DLL in the Wine prefix's
// system32 folder, Windows test binaries of gopi run under Wine.
//
// Usage: go run ./scripts/wineprng PATH
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: wineprng PATH (the bcryptprimitives.dll to write)")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], dll(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "wineprng:", err)
		os.Exit(1)
	}
}

const (
	fileAlign = 0x200
	sectRVA   = 0x1000
)

// dll builds a PE32+ (x86-64) DLL with one section holding the export
// directory, whose one function is a forwarder string.
func dll() []byte {
	// The export section, laid out from sectRVA.
	const (
		dirSize  = 40
		eatOff   = dirSize
		namesOff = eatOff + 4
		ordsOff  = namesOff + 4
		strOff   = ordsOff + 2
	)
	dllName := "bcryptprimitives.dll\x00"
	funcName := "ProcessPrng\x00"
	target := "advapi32.SystemFunction036\x00"
	nameRVA := sectRVA + strOff
	funcRVA := nameRVA + len(dllName)
	targetRVA := funcRVA + len(funcName)
	exportSize := strOff + len(dllName) + len(funcName) + len(target)

	var sect bytes.Buffer
	le := func(b *bytes.Buffer, v any) { _ = binary.Write(b, binary.LittleEndian, v) }
	le(&sect, [4]uint32{0, 0, 0, uint32(nameRVA)}) // characteristics, time, version, name
	le(&sect, [6]uint32{1, 1, 1, sectRVA + eatOff, sectRVA + namesOff, sectRVA + ordsOff})
	le(&sect, uint32(targetRVA)) // the function: a forwarder, inside the export directory
	le(&sect, uint32(funcRVA))
	le(&sect, uint16(0))
	sect.WriteString(dllName + funcName + target)
	raw := make([]byte, fileAlign)
	copy(raw, sect.Bytes())

	var h bytes.Buffer
	dos := make([]byte, 64)
	copy(dos, "MZ")
	binary.LittleEndian.PutUint32(dos[0x3c:], 64)
	h.Write(dos)
	h.WriteString("PE\x00\x00")
	// COFF header: x86-64, one section, 240-byte optional header, an
	// executable large-address-aware DLL.
	le(&h, struct {
		Machine, Sections        uint16
		Time, Symtab, NSyms      uint32
		OptSize, Characteristics uint16
	}{0x8664, 1, 0, 0, 0, 240, 0x2022})
	le(&h, struct {
		Magic                                uint16
		MajLink, MinLink                     uint8
		Code, Data, BSS, Entry, CodeBase     uint32
		ImageBase                            uint64
		SectAlign, FileAlign                 uint32
		MajOS, MinOS, MajImg, MinImg         uint16
		MajSub, MinSub                       uint16
		Win32Ver, ImageSize, HeaderSize, Sum uint32
		Subsystem, DllChars                  uint16
		StackRes, StackCommit                uint64
		HeapRes, HeapCommit                  uint64
		LoaderFlags, NumDirs                 uint32
	}{0x20b, 1, 0, 0, fileAlign, 0, 0, sectRVA, 0x180000000, 0x1000, fileAlign,
		6, 0, 0, 0, 6, 0, 0, 2 * sectRVA, fileAlign, 0, 3, 0x100,
		0x100000, 0x1000, 0x100000, 0x1000, 0, 16})
	dirs := make([]uint32, 32)
	dirs[0], dirs[1] = sectRVA, uint32(exportSize)
	le(&h, dirs)
	var name [8]byte
	copy(name[:], ".edata")
	h.Write(name[:])
	le(&h, [8]uint32{uint32(exportSize), sectRVA, fileAlign, fileAlign, 0, 0, 0, 0x40000040})
	hdr := make([]byte, fileAlign)
	copy(hdr, h.Bytes())
	return append(hdr, raw...)
}
