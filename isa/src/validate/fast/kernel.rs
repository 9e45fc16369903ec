//! Which kernel judges a stream's batches: [`Kernel`], named in code, by
//! [`ENV_KERNEL`] for a whole process, or chosen by timing (`auto.rs`);
//! [`ENV_HIDE`], which makes a process treat a kernel as missing; and
//! [`verdicts`], the dispatch, whose call into the AVX-512 kernel is the
//! one place a `#[target_feature]` function is entered, behind the proof
//! that the CPU check passed.

#[cfg(target_arch = "x86_64")]
use super::lanes;
use super::scalar::{verdicts_scalar, Work};
use super::{auto, Batch, Rules, Verdict, BATCH};
use std::sync::OnceLock;

/// Which kernel judges the batches of a stream. All give the same
/// verdicts (the tests compare each with the scalar one); they differ in
/// speed only.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Kernel {
    /// The one [`ENV_KERNEL`] names, if set and this CPU runs it; else
    /// the fastest this CPU runs, timed once per process
    /// ([`Kernel::auto_timings`]).
    #[default]
    Auto,
    /// Scalar code, on every CPU and architecture.
    Portable,
    /// The lanes kernel on AVX-512 with VBMI (x86-64).
    Avx512,
}

/// Names the kernel [`Kernel::Auto`] runs for a whole process (`portable`,
/// `avx512` or `auto`), to measure or test one on any CPU that has
/// its instructions; read once per process.
pub const ENV_KERNEL: &str = "TPB_ISA_KERNEL";

/// Kernels to treat as though this CPU lacked their instructions, comma
/// separated (`avx512`): a machine with AVX-512 then behaves, for
/// the whole process, like one without (which kernel `auto` picks, what
/// naming a missing kernel does), the way glibc's hwcaps tunables mask
/// CPU features. Read once per process; `portable` cannot be hidden.
pub const ENV_HIDE: &str = "TPB_ISA_HIDE_KERNELS";

/// The kernels [`ENV_HIDE`] names (names that are not hideable kernels are
/// left to [`Kernel::from_env`] to refuse).
fn hidden(k: Kernel) -> bool {
    static HIDDEN: OnceLock<Vec<Kernel>> = OnceLock::new();
    HIDDEN.get_or_init(|| hide_list().unwrap_or_default()).contains(&k)
}

/// [`ENV_HIDE`] read: the kernels named, or the first name that is no hideable kernel.
fn hide_list() -> Result<Vec<Kernel>, KernelEnvError> {
    let Some(v) = std::env::var_os(ENV_HIDE) else { return Ok(Vec::new()) };
    let v = v.to_string_lossy();
    v.split(',')
        .filter(|n| !n.is_empty())
        .map(|n| {
            Kernel::from_label(n)
                .filter(|k| !matches!(k, Kernel::Auto | Kernel::Portable))
                .ok_or_else(|| KernelEnvError::NotHideable { name: n.to_string() })
        })
        .collect()
}

/// Why [`ENV_KERNEL`] or [`ENV_HIDE`] cannot be followed ([`Kernel::from_env`]).
/// `runs` lists the concrete kernels this process runs, in [`Kernel::CONCRETE`] order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KernelEnvError {
    /// [`ENV_HIDE`] names something that is not a kernel that can be hidden
    /// (only `avx512` can: `portable` is the fallback, `auto` no kernel).
    #[error("{ENV_HIDE}: {name:?} is not a kernel that can be hidden (avx512)")]
    NotHideable {
        /// The name, as written in the list.
        name: String,
    },
    /// [`ENV_KERNEL`] names a kernel that [`ENV_HIDE`] hides.
    #[error("{ENV_KERNEL}={k}: hidden by {ENV_HIDE} (this process runs: {})", labels(.runs), k = .kernel.label())]
    Hidden {
        /// The kernel named.
        kernel: Kernel,
        /// The kernels this process runs.
        runs: Vec<Kernel>,
    },
    /// [`ENV_KERNEL`] names a kernel whose instructions this CPU lacks.
    #[error("{ENV_KERNEL}={k}: this CPU lacks the instructions of the {k} kernel (it runs: {})", labels(.runs), k = .kernel.label())]
    Missing {
        /// The kernel named.
        kernel: Kernel,
        /// The kernels this CPU runs.
        runs: Vec<Kernel>,
    },
    /// [`ENV_KERNEL`] is no kernel's name ([`Kernel::label`]).
    #[error("{ENV_KERNEL}={name:?}: not a kernel (this CPU runs: {}; or auto)", labels(.runs))]
    Unknown {
        /// The value of the variable (lossily UTF-8).
        name: String,
        /// The kernels this CPU runs.
        runs: Vec<Kernel>,
    },
}

/// The kernels' labels, comma separated, as an error lists them.
fn labels(kernels: &[Kernel]) -> String {
    kernels.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ")
}

/// A kernel ready to run: the proof that the CPU has its features.
#[derive(Clone, Copy)]
enum Ready {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx512(&'static lanes::avx512::Kernel),
}

impl Kernel {
    /// The kernels that are not [`Kernel::Auto`].
    pub const CONCRETE: [Kernel; 2] = [Kernel::Avx512, Kernel::Portable];

    /// What [`Kernel::Auto`] was chosen by in this process: each kernel
    /// this CPU runs and its best time of [`AUTO_ROUNDS`](super::AUTO_ROUNDS) on a sample of
    /// [`AUTO_SAMPLE_BUNDLES`](super::AUTO_SAMPLE_BUNDLES) bundles, timed once, the first time Auto
    /// ran; empty when [`ENV_KERNEL`] named the kernel.
    pub fn auto_timings() -> &'static [(Kernel, std::time::Duration)] {
        &auto_choice().1
    }

    /// The kernel's own name, as [`ENV_KERNEL`] takes it.
    pub fn label(self) -> &'static str {
        match self {
            Kernel::Auto => "auto",
            Kernel::Portable => "portable",
            Kernel::Avx512 => "avx512",
        }
    }

    /// The kernel a name (as [`Kernel::label`] gives it) stands for.
    pub fn from_label(name: &str) -> Option<Kernel> {
        [Kernel::Auto].into_iter().chain(Kernel::CONCRETE).find(|k| k.label() == name)
    }

    /// Whether this CPU runs this kernel (Auto always runs one).
    pub fn available(self) -> bool {
        match self {
            Kernel::Auto | Kernel::Portable => true,
            _ => self.ready().is_some(),
        }
    }

    /// The kernels this CPU runs.
    pub fn available_kernels() -> Vec<Kernel> {
        Kernel::CONCRETE.into_iter().filter(|k| k.available()).collect()
    }

    /// The concrete kernel this one runs on this CPU: Auto resolves to
    /// [`ENV_KERNEL`]'s choice or the fastest; a kernel the CPU lacks runs
    /// the portable one.
    pub fn runs(self) -> Kernel {
        match self {
            Kernel::Auto => auto(),
            k if k.available() => k,
            _ => Kernel::Portable,
        }
    }

    /// The name of the kernel this one runs on this CPU: `"avx512"` or `"portable"`.
    pub fn name(self) -> &'static str {
        self.runs().label()
    }

    /// The kernel [`ENV_KERNEL`] asks for (Auto when unset), checked: an error names a
    /// kernel this CPU lacks, or an unknown name, and lists the kernels it runs.
    pub fn from_env() -> Result<Kernel, KernelEnvError> {
        hide_list()?;
        let Some(v) = std::env::var_os(ENV_KERNEL) else { return Ok(Kernel::Auto) };
        let runs = Kernel::available_kernels();
        let name = v.to_string_lossy();
        match Kernel::from_label(&name) {
            Some(k) if k.available() => Ok(k),
            Some(kernel) if hidden(kernel) => Err(KernelEnvError::Hidden { kernel, runs }),
            Some(kernel) => Err(KernelEnvError::Missing { kernel, runs }),
            None => Err(KernelEnvError::Unknown { name: name.into_owned(), runs }),
        }
    }

    #[inline]
    fn ready(self) -> Option<Ready> {
        match self {
            Kernel::Auto => auto().ready(),
            Kernel::Portable => Some(Ready::Portable),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => lanes::avx512::kernel().filter(|_| !hidden(self)).map(Ready::Avx512),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 => None,
        }
    }
}

/// What [`Kernel::Auto`] runs in this process.
fn auto() -> Kernel {
    auto_choice().0
}

/// [`Kernel::Auto`]'s kernel for this process and, unless [`ENV_KERNEL`]
/// named it, the timings it was chosen by (`auto.rs`).
fn auto_choice() -> &'static (Kernel, auto::Timings) {
    static AUTO: OnceLock<(Kernel, auto::Timings)> = OnceLock::new();
    AUTO.get_or_init(|| match Kernel::from_env() {
        Ok(k) if k != Kernel::Auto => (k, Vec::new()),
        _ => {
            let timed = auto::timings(&Kernel::available_kernels());
            (auto::fastest(&timed), timed)
        }
    })
}

/// [`super::verdict_raw`] of every bundle of a batch, on `kernel`.
#[allow(unsafe_code)]
pub(in super::super) fn verdicts(batch: &Batch, rules: Rules, kernel: Kernel, work: &mut Work) -> [Verdict; BATCH] {
    match kernel.ready().unwrap_or(Ready::Portable) {
        Ready::Portable => verdicts_scalar(batch, rules, work),
        // SAFETY: the backend's `Kernel` exists only where its `kernel()` found every feature its `judge` enables.
        #[cfg(target_arch = "x86_64")]
        Ready::Avx512(k) => unsafe { lanes::avx512::judge(k, batch, rules) },
    }
}

#[cfg(test)]
mod tests {
    use crate::bundle::BUNDLE_BYTES;
    use crate::generation::Generation;
    use crate::{props, smith};
    use arbitrary::Unstructured;

    #[test]
    fn a_batch_is_judged_like_its_bundles_one_by_one() {
        use super::super::verdict_raw;
        use super::{verdicts, Batch, Kernel, Rules, Work, BATCH};
        // Generated bundles, each also with one byte corrupted and mutated, and random bytes, mixed.
        let mut pool = Vec::new();
        for seed in 0..1500u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            for g in Generation::ALL {
                let Ok(b) = smith::bundle(&mut u, g) else { continue };
                let mut raw = b.encode();
                pool.push(raw);
                if let (Ok(at), Ok(v)) = (u.int_in_range(0..=BUNDLE_BYTES - 1), u.arbitrary::<u8>()) {
                    raw[at] = v;
                    pool.push(raw);
                }
                // One invariant broken by the mutator.
                if let Ok(Some(m)) = smith::mutate(&mut u, &b, g) {
                    pool.push(m.bundle.encode());
                }
            }
            let mut random = [0u8; BUNDLE_BYTES];
            random.copy_from_slice(&props::seeded_bytes(seed ^ 0x5eed, BUNDLE_BYTES));
            pool.push(random);
        }
        // Each kernel this CPU runs, its work lists kept from batch to batch as a stream keeps them.
        let mut work = Work::default();
        for kernel in Kernel::available_kernels() {
            let mut checked = [0usize; 3];
            for chunk in pool.chunks_exact(BATCH) {
                let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
                batch.copy_from_slice(chunk);
                // Each generation by the spec and amended.
                for rules in Rules::ALL {
                    for (raw, v) in batch.iter().zip(verdicts(&batch, rules, kernel, &mut work)) {
                        assert_eq!(v, verdict_raw(raw, rules), "{} kernel, {rules:?}: {raw:02x?}", kernel.name());
                        checked[v as usize] += 1;
                    }
                }
            }
            // Every verdict occurs, so each pass's result is compared.
            assert!(checked.iter().all(|&n| n > 100), "{} kernel, verdicts seen: {checked:?}", kernel.name());
        }
    }

    #[test]
    fn every_kernel_agrees_with_the_scalar_one_on_every_byte_of_every_body_set_to_telling_values() {
        use super::{verdicts, Batch, Kernel, Rules, Work, BATCH};
        let vector: Vec<Kernel> = Kernel::available_kernels().into_iter().filter(|&k| k != Kernel::Portable).collect();
        if vector.is_empty() {
            eprintln!("this CPU runs only the portable kernel: nothing to compare");
            return;
        }
        // Two clean bundles of each body kind and generation, then every body byte set to values
        // that move an address word across modes and regions, a dtype across tags, a band byte across its set;
        // and every pair of bytes zeroed (a zero num).
        let mut seen = std::collections::HashMap::new();
        let mut pool = Vec::new();
        for seed in 0..4000u64 {
            let bytes = props::seeded_bytes(seed, 512);
            let mut u = Unstructured::new(&bytes);
            let g = Generation::ALL[seed as usize % Generation::ALL.len()];
            let Ok(b) = smith::bundle(&mut u, g) else { continue };
            let n = seen.entry((b.kind(), g)).or_insert(0);
            if *n >= 2 {
                continue;
            }
            *n += 1;
            for at in 4..BUNDLE_BYTES {
                for v in [
                    0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x0F, 0x10, 0x11, 0x1F, 0x20, 0x22, 0x24, 0x40, 0x60, 0x7F, 0x80, 0xA0, 0xC0, 0xE0, 0xF0,
                    0xFF,
                ] {
                    let mut raw = b.encode();
                    raw[at] = v;
                    pool.push(raw);
                }
                let mut raw = b.encode();
                raw[at] ^= 1;
                pool.push(raw);
                // A zero 16-bit num.
                let mut raw = b.encode();
                raw[at..(at + 2).min(BUNDLE_BYTES)].fill(0);
                pool.push(raw);
            }
        }
        assert!(seen.len() >= 20, "body kinds and generations seen: {}", seen.len());
        let mut differ = 0;
        let mut verdicts_seen = [0usize; 3];
        let mut work = Work::default();
        for chunk in pool.chunks(BATCH) {
            let mut batch: Batch = [[0; BUNDLE_BYTES]; BATCH];
            batch.iter_mut().zip(chunk).for_each(|(d, s)| *d = *s);
            for rules in Rules::ALL {
                let portable = verdicts(&batch, rules, Kernel::Portable, &mut work);
                for &k in &vector {
                    for ((raw, p), v) in batch.iter().zip(portable).zip(verdicts(&batch, rules, k, &mut work)) {
                        if p != v {
                            differ += 1;
                            eprintln!("{rules:?}: portable {p:?}, {} {v:?}: {raw:02x?}", k.name());
                        }
                        verdicts_seen[v as usize] += 1;
                    }
                }
            }
        }
        assert_eq!(differ, 0, "bundles judged differently by a vector kernel and the scalar one");
        assert!(verdicts_seen.iter().all(|&n| n > 1000), "verdicts seen: {verdicts_seen:?}");
    }

    #[test]
    fn every_kernel_the_cpu_has_is_built() {
        use super::{hidden, Kernel};
        #[cfg(target_arch = "x86_64")]
        let has_avx512 = super::lanes::avx512::cpu_has_features();
        // Elsewhere the x86-64 kernels are not built.
        #[cfg(not(target_arch = "x86_64"))]
        let has_avx512 = false;
        // Where the CPU has a backend's features, the description must have fitted it
        // (unless TPB_ISA_HIDE_KERNELS hides it from this process).
        assert_eq!(Kernel::Avx512.available(), has_avx512 && !hidden(Kernel::Avx512));
        assert_eq!(Kernel::Auto.runs(), Kernel::from_env().unwrap_or(Kernel::Auto).runs());
        assert!(Kernel::available_kernels().contains(&Kernel::Portable));
        // A kernel the CPU has runs itself and goes by its own name; one it lacks runs the portable kernel.
        for k in Kernel::CONCRETE {
            let runs = if k.available() { k } else { Kernel::Portable };
            assert_eq!((k.runs(), k.name()), (runs, runs.label()), "{}", k.label());
        }
        assert_eq!(Kernel::CONCRETE.map(Kernel::label), ["avx512", "portable"]);
        assert!(Kernel::Auto.name() != "auto" && Kernel::Auto.name() == Kernel::Auto.runs().label());
    }

    /// A kernel the process does not run is refused with the reason: hidden,
    /// or missing from the CPU (which only a CPU without it shows end to end).
    #[test]
    fn a_refused_kernel_says_why() {
        use super::{Kernel, KernelEnvError};
        let runs = vec![Kernel::Portable];
        assert_eq!(
            KernelEnvError::Hidden { kernel: Kernel::Avx512, runs: runs.clone() }.to_string(),
            "TPB_ISA_KERNEL=avx512: hidden by TPB_ISA_HIDE_KERNELS (this process runs: portable)"
        );
        assert_eq!(
            KernelEnvError::Missing { kernel: Kernel::Avx512, runs: runs.clone() }.to_string(),
            "TPB_ISA_KERNEL=avx512: this CPU lacks the instructions of the avx512 kernel (it runs: portable)"
        );
        assert_eq!(
            KernelEnvError::Unknown { name: "avx2".into(), runs: vec![Kernel::Avx512, Kernel::Portable] }.to_string(),
            "TPB_ISA_KERNEL=\"avx2\": not a kernel (this CPU runs: avx512, portable; or auto)"
        );
        assert_eq!(
            KernelEnvError::NotHideable { name: "sse".into() }.to_string(),
            "TPB_ISA_HIDE_KERNELS: \"sse\" is not a kernel that can be hidden (avx512)"
        );
    }

    /// [`super::ENV_HIDE`] is read once per process: each case runs in a child
    /// run of this test binary (this test alone), which checks it.
    #[test]
    fn hidden_kernels_are_missing_for_the_whole_process() {
        use super::{Kernel, ENV_HIDE, ENV_KERNEL};
        const CHILD: &str = "TPB_ISA_TEST_HIDE_CHILD";
        if let Some(case) = std::env::var_os(CHILD) {
            let named = |k: Kernel| k.label().to_string();
            match case.to_str() {
                // As on a CPU without AVX-512: only the portable kernel runs,
                // whatever is asked for, and the verdicts are the same.
                Some("none") => {
                    assert_eq!(Kernel::available_kernels(), [Kernel::Portable]);
                    assert_eq!([Kernel::Auto, Kernel::Avx512].map(Kernel::runs), [Kernel::Portable; 2]);
                    assert_eq!(Kernel::from_env(), Ok(Kernel::Auto));
                    let (bytes, g) = (props::seeded_bytes(7, 1 << 14), Generation::V3);
                    let stream: Vec<u8> = (0..64u64).flat_map(|s| props::seeded_bytes(s, 64)).chain(bytes).collect();
                    let run = |k| {
                        let mut seen = Vec::new();
                        crate::validate::decode_stream_with(k, &stream, g, |i, _, f| seen.push((i, f.to_vec())));
                        seen
                    };
                    assert!(run(Kernel::Portable).iter().any(|(_, f)| !f.is_empty()));
                    assert_eq!(run(Kernel::Avx512), run(Kernel::Portable));
                }
                // Named, a hidden kernel is refused as a missing one is, saying why.
                Some("named") => {
                    assert!(!Kernel::available_kernels().contains(&Kernel::Avx512));
                    let Err(e) = Kernel::from_env().map_err(|e| e.to_string()) else { panic!("a hidden kernel was accepted") };
                    assert!(e.starts_with(&format!("{ENV_KERNEL}=avx512: hidden by {ENV_HIDE} (this process runs: ")), "{e}");
                    assert!(e.contains(&named(Kernel::Portable)) && !e.contains("avx512)"), "{e}");
                }
                _ => {
                    let hide = std::env::var(ENV_HIDE).unwrap_or_default();
                    let Err(e) = Kernel::from_env().map_err(|e| e.to_string()) else { panic!("{ENV_HIDE}={hide:?} was accepted") };
                    assert!(e.contains("is not a kernel that can be hidden"), "{e}");
                }
            }
            return;
        }
        let this = module_path!().split_once("::").map_or("", |(_, path)| path).to_owned() + "::hidden_kernels_are_missing_for_the_whole_process";
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("this test binary: {e}"));
        // `avx2` named a kernel once (removed: slower than the portable one on every CPU tried).
        let cases: [(&str, &str, Option<&str>); 5] = [
            ("none", "avx512", None),
            ("named", "avx512", Some("avx512")),
            ("bad", "avx512,sse", None),
            ("bad", "portable", None),
            ("bad", "avx512,avx2", None),
        ];
        for (case, hide, kernel) in cases {
            let mut c = std::process::Command::new(&exe);
            c.args(["--exact", &this, "--test-threads", "1"]).env(CHILD, case).env(ENV_HIDE, hide).env_remove(ENV_KERNEL);
            if let Some(k) = kernel {
                c.env(ENV_KERNEL, k);
            }
            let (ok, out, err) = child(&mut c);
            assert!(ok, "{case} {hide}: {out}{err}");
            assert!(out.contains("1 passed"), "{case}: the child ran no test: {out}");
        }
    }

    /// [`super::auto`] reads [`super::ENV_KERNEL`] once per process, so each
    /// kernel is named to a child run of this test binary (this test alone),
    /// which checks that `Auto` runs the one named: on a CPU with several, a
    /// name that went unheeded would run the fastest instead.
    #[test]
    fn auto_runs_the_kernel_the_environment_names() {
        use super::{Kernel, ENV_KERNEL};
        const CHILD: &str = "TPB_ISA_TEST_KERNEL_CHILD";
        if std::env::var_os(CHILD).is_some() {
            let named = std::env::var(ENV_KERNEL).ok().and_then(|n| Kernel::from_label(&n));
            assert_eq!(Kernel::from_env().ok(), named, "{ENV_KERNEL} = {:?}", std::env::var(ENV_KERNEL));
            // Named `auto`, the fastest this CPU runs, as timed: every kernel it runs was timed.
            let timed = Kernel::auto_timings();
            let want = named.filter(|&k| k != Kernel::Auto).unwrap_or_else(|| super::auto::fastest(timed));
            assert_eq!(Kernel::Auto.runs(), want, "{ENV_KERNEL} = {:?}", std::env::var(ENV_KERNEL));
            let timed_kernels: Vec<Kernel> = timed.iter().map(|&(k, _)| k).collect();
            let want_timed = if named.is_some_and(|k| k != Kernel::Auto) { Vec::new() } else { Kernel::available_kernels() };
            assert_eq!(timed_kernels, want_timed, "{ENV_KERNEL} = {:?}", std::env::var(ENV_KERNEL));
            return;
        }
        let this = module_path!().split_once("::").map_or("", |(_, path)| path).to_owned() + "::auto_runs_the_kernel_the_environment_names";
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("this test binary: {e}"));
        for k in [Kernel::Auto].into_iter().chain(Kernel::available_kernels()) {
            let (ok, out, err) =
                child(std::process::Command::new(&exe).args(["--exact", &this, "--test-threads", "1"]).env(CHILD, "1").env(ENV_KERNEL, k.label()));
            assert!(ok, "{}: {out}{err}", k.label());
            assert!(out.contains("1 passed"), "{}: the child ran no test: {out}", k.label());
        }
    }

    /// More than a pipe buffer (64 KiB) on each stream comes back whole: a
    /// helper that read only after the child exited would leave it blocked on
    /// a full pipe, and `child` would fail it at the minute's limit.
    #[cfg(unix)]
    #[test]
    fn a_child_s_long_output_is_read_while_it_runs() {
        let (ok, out, err) = child(std::process::Command::new("sh").args(["-c", "yes out | head -c 300000; yes err | head -c 200000 >&2"]));
        assert!(ok);
        assert_eq!((out.len(), err.len()), (300_000, 200_000));
        assert!(out.starts_with("out\nout\n") && err.starts_with("err\n"), "{:?} {:?}", &out[..8], &err[..8]);
    }

    /// Runs a child test process: whether it passed, its stdout and stderr. A
    /// child that has not finished in a minute is killed and fails the test (a
    /// kernel choice that waits on itself hangs rather than fails). Both pipes
    /// are drained on threads while it runs, so a child writing more than a
    /// pipe buffer is not stalled into that minute.
    fn child(c: &mut std::process::Command) -> (bool, String, String) {
        use std::io::Read;
        use wait_timeout::ChildExt;
        fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
            std::thread::spawn(move || {
                let mut text = String::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_string(&mut text);
                }
                text
            })
        }
        let mut p = c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let (out, err) = (drain(p.stdout.take()), drain(p.stderr.take()));
        let status = p.wait_timeout(std::time::Duration::from_secs(60)).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let Some(status) = status else {
            let _ = p.kill();
            let _ = p.wait();
            panic!("{c:?}: no answer in 60 s");
        };
        let text = |h: std::thread::JoinHandle<String>| h.join().unwrap_or_else(|_| panic!("{c:?}: a pipe reader panicked"));
        (status.success(), text(out), text(err))
    }
}
