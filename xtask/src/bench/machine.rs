//! What the figures were measured on: CPU, cores, memory, kernel, load,
//! toolchain, commit and date. Read from /proc and the tools themselves;
//! anything unavailable reads `unknown`.

use std::process::Command;

/// The machine and moment of a run.
#[derive(Clone, Debug)]
pub struct Machine {
    /// `YYYY-MM-DD HH:MM` UTC.
    pub date: String,
    pub cpu_model: String,
    /// Logical CPUs in /proc/cpuinfo.
    pub logical_cpus: usize,
    /// Threads this process may run at once (cgroup/affinity aware).
    pub parallelism: usize,
    pub memory: String,
    pub kernel: String,
    /// /proc/loadavg's first three fields: how busy the machine was.
    pub loadavg: String,
    pub rustc: String,
    pub commit: String,
}

const UNKNOWN: &str = "unknown";

impl Machine {
    pub fn probe() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string()))
            .unwrap_or_else(|| UNKNOWN.into());
        // Family and model tell CPU generations apart that share a model name (Zen 1/2/3/4 EPYCs).
        let field = |key: &str| cpuinfo.lines().find_map(|l| l.split_once(':').filter(|(k, _)| k.trim() == key).map(|(_, v)| v.trim().to_string()));
        let cpu_model = match (field("cpu family"), field("model")) {
            (Some(f), Some(m)) => format!("{cpu_model} (family {f}, model {m})"),
            _ => cpu_model,
        };
        let logical_cpus = cpuinfo.lines().filter(|l| l.starts_with("processor")).count();
        let parallelism = std::thread::available_parallelism().map_or(1, usize::from);
        let memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| m.lines().find_map(|l| l.strip_prefix("MemTotal:").map(str::trim).map(str::to_string)))
            .and_then(|v| v.trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or_else(|| UNKNOWN.into(), |kib| format!("{:.1} GiB", kib as f64 / f64::from(1u32 << 20)));
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").map_or_else(|_| UNKNOWN.into(), |s| s.trim().to_string());
        let loadavg = std::fs::read_to_string("/proc/loadavg")
            .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_else(|_| UNKNOWN.into());
        Machine {
            date: minutes(std::time::SystemTime::now()),
            cpu_model,
            logical_cpus: logical_cpus.max(1),
            parallelism,
            memory,
            kernel,
            loadavg,
            rustc: tool_line("rustc", &["--version"]),
            commit: tool_line("git", &["rev-parse", "--short", "HEAD"]),
        }
    }
}

/// First line of a tool's stdout, or `unknown`.
fn tool_line(tool: &str, args: &[&str]) -> String {
    Command::new(tool)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8_lossy(&o.stdout).lines().next().map(str::to_string))
        .unwrap_or_else(|| UNKNOWN.into())
}

/// `2026-05-01 03:04`: the UTC date and time to the minute, as the report's date line says it.
fn minutes(t: std::time::SystemTime) -> String {
    let s = humantime::format_rfc3339_seconds(t).to_string();
    let (date, time) = s.split_once('T').unwrap_or((&s, ""));
    format!("{date} {}", time.get(..5).unwrap_or(time))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn the_date_is_utc_to_the_minute() {
        let at = |secs| minutes(UNIX_EPOCH + Duration::from_secs(secs));
        // 2000-02-29 (leap day of a century leap year) 12:34:56; seconds are dropped, not rounded.
        assert_eq!(at(951_827_696), "2000-02-29 12:34");
        assert_eq!(at(1_767_323_096), "2026-01-02 03:04");
        assert_eq!(at(1_767_225_599), "2025-12-31 23:59");
    }

    /// On Linux every field is read; the CPU names its family and model.
    #[test]
    fn the_machine_is_read_from_proc_and_the_tools() {
        let m = Machine::probe();
        if !std::path::Path::new("/proc/cpuinfo").is_file() {
            return;
        }
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        assert_eq!(m.logical_cpus, cpuinfo.lines().filter(|l| l.starts_with("processor")).count().max(1));
        // The first CPU's "cpu family" and "model" lines (not "model name"), where /proc has them.
        let value = |key: &str| {
            cpuinfo.lines().find(|l| l.split(':').next().is_some_and(|k| k.trim() == key)).and_then(|l| l.split(':').nth(1)).map(str::trim)
        };
        if let (Some(f), Some(model)) = (value("cpu family"), value("model")) {
            assert!(m.cpu_model.ends_with(&format!(" (family {f}, model {model})")), "{}", m.cpu_model);
        }
        assert!(m.memory.ends_with(" GiB") && m.kernel != UNKNOWN && m.loadavg.split(' ').count() == 3, "{m:?}");
        assert!(m.rustc.starts_with("rustc ") || m.rustc == UNKNOWN, "{}", m.rustc);
        assert_eq!(m.date.len(), "2026-01-02 03:04".len(), "{}", m.date);
        assert!(m.parallelism >= 1);
    }

    #[test]
    fn a_tool_gives_its_first_line_or_unknown() {
        assert_eq!(tool_line("sh", &["-c", "echo first; echo second"]), "first");
        assert_eq!(tool_line("sh", &["-c", "echo out; exit 1"]), UNKNOWN);
        assert_eq!(tool_line("tpb-no-such-tool-anywhere", &[]), UNKNOWN);
    }
}
