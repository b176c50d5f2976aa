package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc CPU times (100 on Linux).
const clockTicks = 100.0

// cpuSeconds is the user+system CPU time a process used so far.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after ")" are fixed.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad times", pid)
	}
	return (utime + stime) / clockTicks, nil
}

// memoryMB reads VmRSS (now) and VmHWM (peak) of a process in MiB.
func memoryMB(pid int) (rss, peak float64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		kb, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		if k == "VmRSS" {
			rss = kb / 1024
		} else {
			peak = kb / 1024
		}
	}
	return rss, peak, sc.Err()
}

// machineCPU is the busy and total jiffies of every core (/proc/stat).
type machineCPU struct{ busy, total float64 }

func readMachineCPU() (machineCPU, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return machineCPU{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var m machineCPU
	for i, v := range f[1:] {
		n, _ := strconv.ParseFloat(v, 64)
		if i >= 8 { // guest times are already in user and nice
			break
		}
		m.total += n
		if i != 3 && i != 4 { // idle, iowait
			m.busy += n
		}
	}
	return m, nil
}

// busyCores is how many cores were busy on average between a and b.
func busyCores(a, b machineCPU, cores int) float64 {
	if b.total <= a.total {
		return 0
	}
	return (b.busy - a.busy) / (b.total - a.total) * float64(cores)
}

func readPIDFile(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(data)))
}

// procCPU is one process's name and CPU time so far.
type procCPU struct {
	comm string
	cpu  float64
}

// allProcesses reads the name and CPU time of every live process.
func allProcesses() map[int]procCPU {
	out := map[int]procCPU{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil {
			continue
		}
		if s, err := cpuSeconds(pid); err == nil {
			out[pid] = procCPU{comm: strings.TrimSpace(string(comm)), cpu: s}
		}
	}
	return out
}

// cpuByName is the CPU time of the processes named name (/proc/<pid>/comm),
// by PID: PostgreSQL's backends, RabbitMQ's VM.
func cpuByName(all map[int]procCPU, name string) map[int]float64 {
	out := map[int]float64{}
	for pid, p := range all {
		if p.comm == name {
			out[pid] = p.cpu
		}
	}
	return out
}

// othersCPU sums, by process name, the CPU that processes other than ours
// used between two snapshots (processes that exited meanwhile are missed).
func othersCPU(before, after map[int]procCPU, ours func(pid int, comm string) bool) map[string]float64 {
	out := map[string]float64{}
	for pid, a := range after {
		if ours(pid, a.comm) {
			continue
		}
		d := a.cpu // started meanwhile (kernel threads change their name: match by PID)
		if b, ok := before[pid]; ok {
			d -= b.cpu
		}
		if d > 0 {
			out[a.comm] += d
		}
	}
	return out
}

// cpuDelta is the CPU the processes of after used since before; a process
// started meanwhile counts whole, one that exited meanwhile is missed, so
// the figure is a lower bound.
func cpuDelta(before, after map[int]float64) float64 {
	total := 0.0
	for pid, a := range after {
		total += max(0, a-before[pid])
	}
	return total
}
