//! Test support: a private headless X session and Swell Foop under it.
//!
//! [`XSession`] starts `Xvfb` (display number chosen by the server through
//! `-displayfd`), a session D-Bus and openbox, each in its own process group,
//! with a fresh temporary `HOME` (and XDG dirs inside it), `NO_AT_BRIDGE=1`,
//! `GDK_BACKEND=x11` and `WAYLAND_DISPLAY`/`XDG_SESSION_TYPE` unset. Dropping it
//! stops every process group it started (TERM, then KILL) and removes the
//! temporary directory. Only one session lives per test process at a time (a
//! global lock), because it also points this process's `DISPLAY` at itself so
//! in-process xcap calls see it.
//!
//! [`SavedGame`] is a Swell Foop board in the `org.gnome.SwellFoop saved-game`
//! GVariant format (see docs/swellfoop.md), with an independent replay of the
//! game's rules so a test knows the ground-truth board and score after the
//! stored history of clicks. Board text follows the crate contract: rows top to
//! bottom joined by `/`, colours `1..=4` exactly as the saved-game bytes, `.`
//! for an empty cell.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use image::RgbImage;

/// Serialises X sessions inside one test process.
static SESSION_LOCK: Mutex<()> = Mutex::new(());

/// True when `prog` is an executable file on `PATH` (or an absolute path).
pub fn have_program(prog: &str) -> bool {
    if prog.contains('/') {
        return Path::new(prog).is_file();
    }
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(prog).is_file()))
        .unwrap_or(false)
}

/// The tools a headless session needs; the first missing one, if any.
pub fn missing_tool() -> Option<&'static str> {
    ["Xvfb", "openbox", "dbus-daemon", "gsettings", "xprop"]
        .into_iter()
        .find(|p| !have_program(p))
}

/// One started child process, leader of its own process group.
struct Proc {
    name: &'static str,
    child: Child,
    /// Kept open so the child never writes into a closed pipe.
    _stdout: Option<BufReader<ChildStdout>>,
}

/// Sends `sig` to the process group `pgid` (errors ignored: it may be gone).
fn kill_group(pgid: u32, sig: &str) {
    let _ = Command::new("kill")
        .args([sig, "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// True while any process of group `pgid` exists.
pub fn group_alive(pgid: u32) -> bool {
    Command::new("kill")
        .args(["-0", "--", &format!("-{pgid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|st| st.success())
        .unwrap_or(false)
}

impl Proc {
    fn stop(&mut self) {
        let pgid = self.child.id();
        if matches!(self.child.try_wait(), Ok(None)) {
            kill_group(pgid, "-TERM");
            let until = Instant::now() + Duration::from_secs(3);
            while Instant::now() < until {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        // Whatever is left of the group (the leader or its children) goes now.
        kill_group(pgid, "-KILL");
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Children of the leader (e.g. the bus-activated dconf-service) are
        // reaped by init; wait until the group is really empty.
        let until = Instant::now() + Duration::from_secs(2);
        while group_alive(pgid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A private headless X session; see the module docs.
pub struct XSession {
    display: String,
    bus: String,
    dir: PathBuf,
    procs: Vec<Proc>,
    old_display: Option<std::ffi::OsString>,
    _lock: MutexGuard<'static, ()>,
}

fn unique_dir() -> Result<PathBuf, String> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("gridbot-xsession-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(dir.join("home"))
        .and_then(|_| std::fs::create_dir_all(dir.join("run")))
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    Ok(dir)
}

/// Reads the first line a child prints on stdout (blocks until it does or exits).
fn first_line(out: &mut BufReader<ChildStdout>, what: &str) -> Result<String, String> {
    let mut line = String::new();
    out.read_line(&mut line)
        .map_err(|e| format!("reading {what}: {e}"))?;
    let line = line.trim().to_string();
    if line.is_empty() {
        return Err(format!("{what}: the process exited without printing it"));
    }
    Ok(line)
}

impl XSession {
    /// Starts Xvfb (1280x1024x24), a session bus and openbox. Fails if any
    /// of them does not come up; check [`missing_tool`] first to skip instead.
    pub fn start() -> Result<XSession, String> {
        let lock = SESSION_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let dir = unique_dir()?;
        let mut s = XSession {
            display: String::new(),
            bus: String::new(),
            dir,
            procs: Vec::new(),
            old_display: std::env::var_os("DISPLAY"),
            _lock: lock,
        };

        // Xvfb prints the display number it picked on fd 1 (our pipe).
        let mut cmd = Command::new("Xvfb");
        cmd.args([
            "-displayfd",
            "1",
            "-noreset",
            "-nolisten",
            "tcp",
            "-screen",
            "0",
            "1280x1024x24",
        ]);
        let num = s.spawn_reporting("Xvfb", cmd, "the Xvfb display number")?;
        let num: u32 = num
            .parse()
            .map_err(|_| format!("Xvfb printed {num:?}, not a display number"))?;
        s.display = format!(":{num}");

        let mut cmd = Command::new("dbus-daemon");
        cmd.args(["--session", "--nofork", "--nopidfile", "--print-address=1"]);
        s.bus = s.spawn_reporting("dbus-daemon", cmd, "the session bus address")?;

        // Everything xcap does in this process goes to our display.
        std::env::set_var("DISPLAY", &s.display);
        std::env::remove_var("WAYLAND_DISPLAY");
        std::env::remove_var("XDG_SESSION_TYPE");

        let cmd = s.command("openbox");
        s.spawn("openbox", cmd)?;
        s.wait_until(
            "openbox to manage the screen",
            Duration::from_secs(10),
            |s| {
                let out = s
                    .command("xprop")
                    .args(["-root", "_NET_SUPPORTING_WM_CHECK"])
                    .output()
                    .ok()?;
                String::from_utf8_lossy(&out.stdout)
                    .contains("window id")
                    .then_some(())
            },
        )?;
        s.wait_until_wm_manages()?;
        Ok(s)
    }

    /// Maps a probe window and waits until openbox lists it as a client,
    /// mapping it again every half second. openbox announces itself
    /// (`_NET_SUPPORTING_WM_CHECK`) before its event loop runs, and a
    /// window mapped in that gap was seen to stay unmapped and unmanaged for
    /// good (the practice window, in about half the runs under load); the
    /// games' own windows come up later and never hit it.
    fn wait_until_wm_manages(&self) -> Result<(), String> {
        use x11rb::connection::Connection;
        use x11rb::protocol::xproto::{AtomEnum, ConnectionExt, CreateWindowAux, WindowClass};
        let err = |e: &dyn std::fmt::Display| format!("probe window on {}: {e}", self.display);
        let (conn, screen_num) = x11rb::connect(Some(&self.display)).map_err(|e| err(&e))?;
        let root = conn.setup().roots[screen_num].root;
        let win = conn.generate_id().map_err(|e| err(&e))?;
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            win,
            root,
            0,
            0,
            16,
            16,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &CreateWindowAux::new(),
        )
        .map_err(|e| err(&e))?;
        let list = conn
            .intern_atom(false, b"_NET_CLIENT_LIST")
            .map_err(|e| err(&e))?
            .reply()
            .map_err(|e| err(&e))?
            .atom;
        let listed = || -> Result<bool, String> {
            Ok(conn
                .get_property(false, root, list, AtomEnum::WINDOW, 0, 1024)
                .map_err(|e| err(&e))?
                .reply()
                .map_err(|e| err(&e))?
                .value32()
                .is_some_and(|mut ids| ids.any(|id| id == win)))
        };
        let until = Instant::now() + Duration::from_secs(15);
        let (mut managed, mut maps) = (false, 0);
        while !managed && Instant::now() < until {
            maps += 1;
            conn.map_window(win).map_err(|e| err(&e))?;
            conn.flush().map_err(|e| err(&e))?;
            let step = Instant::now() + Duration::from_millis(500);
            while !managed && Instant::now() < step {
                std::thread::sleep(Duration::from_millis(20));
                managed = listed()?;
            }
        }
        // The next client to connect gets this connection's id base back, so
        // its first window has the probe's id; openbox, not yet through the
        // probe's DestroyNotify, was seen to take it for the probe and size it
        // 16x16 (e2e_window_titles, once in CI). Wait until the probe is gone
        // from the client list before closing the connection.
        let _ = conn.destroy_window(win);
        let _ = conn.flush();
        let until = Instant::now() + Duration::from_secs(5);
        while managed && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
            if !listed()? {
                break;
            }
        }
        if maps > 1 {
            eprintln!("openbox managed the probe window after {maps} map requests");
        }
        if managed {
            Ok(())
        } else {
            Err(format!(
                "openbox did not manage a probe window within 15 s on {}",
                self.display
            ))
        }
    }

    /// The X display, e.g. `:3`.
    pub fn display(&self) -> &str {
        &self.display
    }

    /// Process ids (= process group ids) of everything this session started.
    pub fn pids(&self) -> Vec<u32> {
        self.procs.iter().map(|p| p.child.id()).collect()
    }

    /// The temporary HOME of everything started in this session.
    pub fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    /// The session's scratch directory (logs go here).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Applies the session environment to a command.
    pub fn apply_env(&self, cmd: &mut Command) {
        let home = self.home();
        cmd.env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_RUNTIME_DIR", self.dir.join("run"))
            .env("NO_AT_BRIDGE", "1")
            .env("GDK_BACKEND", "x11")
            .env("LANG", "C.UTF-8")
            .env("LC_ALL", "C.UTF-8")
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("XDG_SESSION_TYPE")
            .env_remove("SESSION_MANAGER");
        if !self.display.is_empty() {
            cmd.env("DISPLAY", &self.display);
        }
        if !self.bus.is_empty() {
            cmd.env("DBUS_SESSION_BUS_ADDRESS", &self.bus);
        }
    }

    /// A command for `prog` with the session environment.
    pub fn command(&self, prog: &str) -> Command {
        let mut cmd = Command::new(prog);
        self.apply_env(&mut cmd);
        cmd
    }

    fn log_file(&self, name: &str) -> Result<std::fs::File, String> {
        let p = self.dir.join(format!("{name}.log"));
        std::fs::File::create(&p).map_err(|e| format!("cannot create {}: {e}", p.display()))
    }

    /// Spawns `cmd` as the leader of a new process group, stderr to a log.
    fn spawn(&mut self, name: &'static str, mut cmd: Command) -> Result<(), String> {
        self.apply_env(&mut cmd);
        let log = self.log_file(name)?;
        let child = cmd
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        self.procs.push(Proc {
            name,
            child,
            _stdout: None,
        });
        Ok(())
    }

    /// Spawns `cmd` like [`XSession::spawn`] and returns the first line it prints.
    fn spawn_reporting(
        &mut self,
        name: &'static str,
        mut cmd: Command,
        what: &str,
    ) -> Result<String, String> {
        self.apply_env(&mut cmd);
        let log = self.log_file(name)?;
        let mut child = cmd
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let mut out = match child.stdout.take() {
            Some(o) => BufReader::new(o),
            None => return Err(format!("{name}: no stdout pipe")),
        };
        let line = first_line(&mut out, what);
        self.procs.push(Proc {
            name,
            child,
            _stdout: Some(out),
        });
        line.map_err(|e| format!("{e}; log: {}", self.tail_log(name)))
    }

    /// The last lines of a child's log, for error messages.
    pub fn tail_log(&self, name: &str) -> String {
        let p = self.dir.join(format!("{name}.log"));
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(8)..].join(" | ")
    }

    /// Polls `f` every 50 ms until it gives a value or `timeout` passes.
    pub fn wait_until<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut f: impl FnMut(&Self) -> Option<T>,
    ) -> Result<T, String> {
        let until = Instant::now() + timeout;
        loop {
            if let Some(v) = f(self) {
                return Ok(v);
            }
            if Instant::now() >= until {
                return Err(format!("timed out after {timeout:?} waiting for {what}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Runs `gsettings ARGS` in the session (dconf through the session bus).
    pub fn gsettings(&self, args: &[&str]) -> Result<String, String> {
        let out = self
            .command("gsettings")
            .args(args)
            .output()
            .map_err(|e| format!("cannot run gsettings: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "gsettings {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// Writes the Swell Foop settings, starts the game and waits for its window.
    /// Returns the window's geometry.
    pub fn launch_swell_foop(&mut self, cfg: &SwellFoop) -> Result<WindowInfo, String> {
        let schema = "org.gnome.SwellFoop";
        let colors = cfg.colors.to_string();
        let saved = cfg
            .saved
            .as_ref()
            .map(|g| g.to_gvariant())
            .unwrap_or_else(|| "nothing".to_string());
        for (key, value) in [
            ("theme", cfg.theme.unwrap_or("shapesandcolors")),
            ("size", cfg.size.name()),
            ("colors", colors.as_str()),
            ("zealous", "false"),
            ("first-run", "false"),
            ("saved-game", saved.as_str()),
        ] {
            self.gsettings(&["set", schema, key, value])?;
        }
        if let Some(g) = &cfg.saved {
            // The game silently starts a random board if it rejects the saved
            // one, so check that the value really is what we meant.
            let back = self.gsettings(&["get", schema, "saved-game"])?;
            if back == "nothing" || back.ends_with(" nothing") {
                return Err(format!(
                    "gsettings did not keep saved-game {}",
                    g.to_gvariant()
                ));
            }
        }
        let (cols, rows) = cfg.size.dims();
        self.launch(
            "swell-foop",
            "/usr/games/swell-foop",
            "swell foop",
            cols as u32 * 20,
            rows as u32 * 20,
        )
    }

    /// Starts `prog` (logged as `name`) and waits for a window whose title
    /// contains `title` and is at least `min_w` x `min_h`; returns its geometry.
    pub fn launch(
        &mut self,
        name: &'static str,
        prog: &str,
        title: &str,
        min_w: u32,
        min_h: u32,
    ) -> Result<WindowInfo, String> {
        self.launch_cmd(name, Command::new(prog), title, min_w, min_h)
    }

    /// [`XSession::launch`] for a prepared command (arguments, environment).
    pub fn launch_cmd(
        &mut self,
        name: &'static str,
        cmd: Command,
        title: &str,
        min_w: u32,
        min_h: u32,
    ) -> Result<WindowInfo, String> {
        self.spawn(name, cmd)?;
        let win = self
            .wait_until(
                &format!("the {title} window"),
                Duration::from_secs(20),
                |_| {
                    find_window(title)
                        .into_iter()
                        .find(|w| w.w >= min_w && w.h >= min_h)
                },
            )
            .map_err(|e| {
                let d = self.diagnose();
                let msg = format!("{e}; display {}; {d}", self.display);
                hold_for_debugging(&msg);
                msg
            })?;
        // Let the first frame be drawn.
        std::thread::sleep(Duration::from_millis(800));
        Ok(win)
    }

    /// What the session looks like, for a failure message: which started
    /// processes still run (and where a live one waits in the kernel), what
    /// xcap lists, the root's client list and top-level windows, and the
    /// last lines of every log.
    pub fn diagnose(&mut self) -> String {
        let mut parts = Vec::new();
        for p in &mut self.procs {
            let pid = p.child.id();
            let state = match p.child.try_wait() {
                Ok(None) => {
                    let wchan =
                        std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_default();
                    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                        .ok()
                        .and_then(|s| {
                            s.rsplit(')')
                                .next()
                                .map(|r| r.trim().chars().take(1).collect::<String>())
                        })
                        .unwrap_or_default();
                    format!("running (state {stat}, wchan {wchan})")
                }
                Ok(Some(st)) => format!("exited: {st}"),
                Err(e) => format!("unknown: {e}"),
            };
            parts.push(format!("{} pid {pid} {state}", p.name));
        }
        parts.push(match xcap::Window::all() {
            Ok(all) => format!("xcap lists {} windows {:?}", all.len(), find_window("")),
            Err(err) => format!("xcap: {err}"),
        });
        let run = |prog: &str, args: &[&str]| -> String {
            match self.command(prog).args(args).output() {
                Ok(o) => String::from_utf8_lossy(&o.stdout)
                    .trim()
                    .replace('\n', " | "),
                Err(e) => format!("cannot run {prog}: {e}"),
            }
        };
        parts.push(format!(
            "root: {}",
            run(
                "xprop",
                &[
                    "-root",
                    "_NET_CLIENT_LIST_STACKING",
                    "_NET_SUPPORTING_WM_CHECK"
                ]
            )
        ));
        parts.push(format!("tree: {}", run("xwininfo", &["-root", "-tree"])));
        for p in &self.procs {
            parts.push(format!("{} log: {}", p.name, self.tail_log(p.name)));
        }
        parts.join("; ")
    }

    /// Starts Quadrapassel (sound off, preview on, level 1) and presses its
    /// Play button (it crashes on a key press before the first game). Returns
    /// the window's geometry.
    pub fn launch_quadrapassel(&mut self) -> Result<WindowInfo, String> {
        let schema = "org.gnome.Quadrapassel";
        for (key, value) in [
            ("sound", "false"),
            ("do-preview", "true"),
            ("show-shadow", "false"),
            ("starting-level", "1"),
            ("line-fill-height", "0"),
            ("random-block-colors", "false"),
        ] {
            self.gsettings(&["set", schema, key, value])?;
        }
        let win = self.launch(
            "quadrapassel",
            "/usr/games/quadrapassel",
            "quadrapassel",
            300,
            300,
        )?;
        // The Play button sits at the bottom right, under the score column
        // (at the default window size: 492,536 of 595x611).
        let x = win.x + (win.w as i32 * 492) / 595;
        let y = win.y + (win.h as i32 * 536) / 611;
        self.xdotool(&["mousemove", &x.to_string(), &y.to_string(), "click", "1"])?;
        // Move the pointer off the window's controls again.
        self.xdotool(&[
            "mousemove",
            &(win.x + 5).to_string(),
            &(win.y + win.h as i32 - 5).to_string(),
        ])?;
        std::thread::sleep(Duration::from_millis(300));
        Ok(win)
    }

    /// Writes Gweled's config (sound and music off: it aborts at start
    /// without a sound device otherwise; tile size 48, a 384x384 board) in
    /// the session's `XDG_CONFIG_HOME`, starts it and waits for its window.
    /// Gweled opens on its welcome screen; see [`XSession::gweled_start`].
    pub fn launch_gweled(&mut self) -> Result<WindowInfo, String> {
        let dir = self.home().join(".config");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let conf = dir.join("gweled.conf");
        std::fs::write(
            &conf,
            "[General]\ntile_size=48\nmusic_on=false\nsounds_on=false\n",
        )
        .map_err(|e| format!("{}: {e}", conf.display()))?;
        self.launch("gweled", "/usr/games/gweled", "gweled", 300, 400)
    }

    /// Starts a game from Gweled's welcome screen by clicking the button of
    /// `mode`, then waits for the gems to fall into place.
    pub fn gweled_start(&self, win: &WindowInfo, mode: GweledMode) -> Result<(), String> {
        let (fx, fy) = mode.button();
        let x = win.x + (win.w as f64 * fx) as i32;
        let y = win.y + (win.h as f64 * fy) as i32;
        self.xdotool(&["mousemove", &x.to_string(), &y.to_string(), "click", "1"])?;
        // Off the board, inside the window (the status bar).
        self.xdotool(&[
            "mousemove",
            &(win.x + win.w as i32 / 2).to_string(),
            &(win.y + win.h as i32 - 4).to_string(),
        ])?;
        std::thread::sleep(Duration::from_millis(2500));
        Ok(())
    }

    /// Quits Gweled as a user would (Ctrl+Q, then "save the current game?
    /// Yes") and reads the game it saved.
    pub fn gweled_quit_and_read_saved(&mut self) -> Result<GweledSaved, String> {
        let path = self.home().join(".config/gweled.saved-game");
        let _ = std::fs::remove_file(&path);
        let _ = self.xdotool(&[
            "search",
            "--onlyvisible",
            "--name",
            "^Gweled$",
            "windowactivate",
        ]);
        std::thread::sleep(Duration::from_millis(200));
        self.xdotool(&["key", "ctrl+q"])?;
        let bytes = self.wait_until("Gweled to save its game", Duration::from_secs(15), |s| {
            if let Ok(b) = std::fs::read(&path) {
                if b.len() >= GweledSaved::SIZE {
                    return Some(b);
                }
            }
            // The question dialog: Yes has the mnemonic Alt+Y.
            let _ = s.xdotool(&["key", "alt+y"]);
            std::thread::sleep(Duration::from_millis(300));
            None
        })?;
        GweledSaved::parse(&bytes)
    }

    /// Runs `xdotool ARGS` and returns what it printed.
    pub fn xdotool_output(&self, args: &[&str]) -> Result<String, String> {
        let out = self
            .command("xdotool")
            .args(args)
            .output()
            .map_err(|e| format!("cannot run xdotool: {e}"))?;
        if !out.status.success() {
            return Err(format!("xdotool {} failed: {}", args.join(" "), out.status));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// True while the game process started by [`XSession::launch_swell_foop`] runs.
    pub fn game_running(&mut self) -> bool {
        self.procs
            .iter_mut()
            .find(|p| p.name == "swell-foop")
            .map(|p| matches!(p.child.try_wait(), Ok(None)))
            .unwrap_or(false)
    }

    /// Stops the game (by its process group), leaving the session up.
    pub fn stop_game(&mut self) {
        if let Some(i) = self.procs.iter().position(|p| p.name == "swell-foop") {
            let mut p = self.procs.remove(i);
            p.stop();
        }
    }

    /// Quits the game as a user would (Ctrl+Q, so it saves its game) and
    /// returns the numbers of the `saved-game` it wrote (see
    /// [`SavedGame::numbers`]); empty if it saved `nothing`.
    pub fn quit_game_and_read_saved(&mut self) -> Result<Vec<u64>, String> {
        // openbox focuses a new window anyway; activation only helps if
        // something else took the focus (a failure here is not fatal).
        let _ = self.xdotool(&[
            "search",
            "--onlyvisible",
            "--name",
            "^Swell Foop$",
            "windowactivate",
        ]);
        std::thread::sleep(Duration::from_millis(200));
        self.xdotool(&["key", "ctrl+q"])?;
        let until = Instant::now() + Duration::from_secs(10);
        while self.game_running() {
            if Instant::now() > until {
                return Err("Swell Foop did not quit on Ctrl+Q".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.stop_game();
        let text = self.gsettings(&["get", "org.gnome.SwellFoop", "saved-game"])?;
        Ok(gvariant_numbers(&text))
    }

    /// Runs `xdotool ARGS` in the session.
    pub fn xdotool(&self, args: &[&str]) -> Result<(), String> {
        let st = self
            .command("xdotool")
            .args(args)
            .status()
            .map_err(|e| format!("cannot run xdotool: {e}"))?;
        if !st.success() {
            return Err(format!("xdotool {} failed: {st}", args.join(" ")));
        }
        Ok(())
    }
}

impl Drop for XSession {
    fn drop(&mut self) {
        // Newest first: the game, openbox, the bus, then the X server.
        while let Some(mut p) = self.procs.pop() {
            p.stop();
        }
        match self.old_display.take() {
            Some(d) => std::env::set_var("DISPLAY", d),
            None => std::env::remove_var("DISPLAY"),
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Gweled's game modes (buttons of its welcome screen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GweledMode {
    Normal,
    Timed,
    Endless,
}

impl GweledMode {
    /// The centre of the mode's button, as fractions of the window size.
    fn button(self) -> (f64, f64) {
        match self {
            GweledMode::Normal => (0.5, 0.44),
            GweledMode::Timed => (0.5, 0.605),
            GweledMode::Endless => (0.5, 0.756),
        }
    }
}

/// The game Gweled 0.9.1 writes to `$XDG_CONFIG_HOME/gweled.saved-game`
/// on quit: its `GweledGameState` (board_engine.h), native-endian `gint`s:
/// `gpc_game_board[8][8]` (x-major: `[col][row]`, gems 0-6), `game_mode`,
/// `gi_score`, `gi_total_gems_removed`, `gi_bonus_multiply`,
/// `gi_previous_bonus_at`, `gi_next_bonus_at`, `gi_level`,
/// `gi_trigger_bonus`, `g_steps_for_timer` (292 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GweledSaved {
    /// `board[row][col]`.
    pub board: [[i32; 8]; 8],
    pub mode: i32,
    pub score: i64,
    pub removed: i64,
    pub level: i64,
}

impl GweledSaved {
    pub const SIZE: usize = (64 + 9) * 4;

    pub fn parse(b: &[u8]) -> Result<GweledSaved, String> {
        if b.len() < Self::SIZE {
            return Err(format!(
                "saved game is {} bytes, want {}",
                b.len(),
                Self::SIZE
            ));
        }
        let int =
            |i: usize| i32::from_ne_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
        let mut board = [[0; 8]; 8];
        for (y, row) in board.iter_mut().enumerate() {
            for (x, v) in row.iter_mut().enumerate() {
                *v = int(x * 8 + y);
            }
        }
        if board.iter().flatten().any(|&v| !(0..7).contains(&v)) {
            return Err(format!("saved board has gems outside 0-6: {board:?}"));
        }
        Ok(GweledSaved {
            board,
            mode: int(64),
            score: int(65) as i64,
            removed: int(66) as i64,
            level: int(70) as i64,
        })
    }

    /// The board as crate board text (Gweled's gem numbers as colours).
    pub fn board_text(&self) -> String {
        self.board
            .iter()
            .map(|r| r.iter().map(|v| v.to_string()).collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// A top-level window as xcap sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowInfo {
    pub title: String,
    pub x: i32,
    pub y: i32,
    pub w: u32,
    pub h: u32,
}

/// With `GRIDBOT_E2E_HOLD=SECONDS` set, prints `msg` and keeps the session
/// up that long before the failure is reported, so a person can look at it.
pub fn hold_for_debugging(msg: &str) {
    if let Some(secs) = std::env::var("GRIDBOT_E2E_HOLD")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        eprintln!("holding the session {secs} s: {msg}");
        std::thread::sleep(Duration::from_secs(secs));
    }
}

/// Windows of the current `DISPLAY` whose title contains `needle` (any case),
/// largest first.
pub fn find_window(needle: &str) -> Vec<WindowInfo> {
    let needle = needle.to_lowercase();
    let Ok(all) = xcap::Window::all() else {
        return Vec::new();
    };
    let mut found: Vec<WindowInfo> = all
        .iter()
        .filter_map(|w| {
            let title = w.title().ok()?;
            if !title.to_lowercase().contains(&needle) {
                return None;
            }
            Some(WindowInfo {
                title,
                x: w.x().ok()?,
                y: w.y().ok()?,
                w: w.width().ok()?,
                h: w.height().ok()?,
            })
        })
        .collect();
    found.sort_by_key(|w| std::cmp::Reverse(w.w as u64 * w.h as u64));
    found
}

/// Captures the largest window whose title contains `needle` (window only).
pub fn capture_window(needle: &str) -> Result<RgbImage, String> {
    let needle_lc = needle.to_lowercase();
    let all = xcap::Window::all().map_err(|e| format!("listing windows: {e}"))?;
    let best = all
        .into_iter()
        .filter(|w| {
            w.title()
                .map(|t| t.to_lowercase().contains(&needle_lc))
                .unwrap_or(false)
        })
        .max_by_key(|w| w.width().unwrap_or(0) as u64 * w.height().unwrap_or(0) as u64)
        .ok_or_else(|| format!("no window titled {needle:?}"))?;
    let rgba = best
        .capture_image()
        .map_err(|e| format!("capturing {needle:?}: {e}"))?;
    Ok(image::DynamicImage::ImageRgba8(rgba).to_rgb8())
}

/// Swell Foop board sizes. `dims()` is (columns, rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Small,
    Normal,
    Large,
}

impl Size {
    pub fn name(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Normal => "normal",
            Size::Large => "large",
        }
    }

    /// (columns, rows).
    pub fn dims(self) -> (usize, usize) {
        match self {
            Size::Small => (6, 5),
            Size::Normal => (15, 10),
            Size::Large => (20, 15),
        }
    }
}

/// What to start Swell Foop with.
#[derive(Debug, Clone)]
pub struct SwellFoop {
    pub size: Size,
    pub colors: u8,
    pub saved: Option<SavedGame>,
    /// The tile theme (`shapesandcolors`, the default, `boringshapes`, `colors`).
    pub theme: Option<&'static str>,
}

/// A Swell Foop saved game: a full initial board (rows top to bottom, colour
/// bytes `1..=4`) and the clicks replayed on load, each `(column, row from the
/// top)` on the board as it is at that click.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedGame {
    pub initial: Vec<Vec<u8>>,
    pub clicks: Vec<(u8, u8)>,
}

/// The result of replaying a saved game with Swell Foop's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    /// Rows top to bottom; 0 = empty.
    pub board: Vec<Vec<u8>>,
    pub score: u64,
}

impl SavedGame {
    /// Parses board text (`/`-joined rows top to bottom, digits 1-4).
    pub fn from_text(text: &str) -> Result<SavedGame, String> {
        let initial: Vec<Vec<u8>> = text
            .trim()
            .split('/')
            .map(|row| {
                row.chars()
                    .map(|c| match c {
                        '1'..='4' => Ok(c as u8 - b'0'),
                        _ => Err(format!("bad cell {c:?} in {text:?}")),
                    })
                    .collect::<Result<Vec<u8>, String>>()
            })
            .collect::<Result<_, _>>()?;
        let cols = initial.first().map(Vec::len).unwrap_or(0);
        if cols == 0 || initial.iter().any(|r| r.len() != cols) {
            return Err(format!("ragged or empty board {text:?}"));
        }
        Ok(SavedGame {
            initial,
            clicks: Vec::new(),
        })
    }

    /// A deterministic pseudo-random full board (xorshift; `seed` != 0).
    pub fn random(cols: usize, rows: usize, colors: u8, seed: u64) -> SavedGame {
        let mut x = seed.max(1);
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let initial = (0..rows)
            .map(|_| {
                (0..cols)
                    .map(|_| (next() % colors as u64) as u8 + 1)
                    .collect()
            })
            .collect();
        SavedGame {
            initial,
            clicks: Vec::new(),
        }
    }

    /// Checks what Swell Foop checks before it accepts a saved game (else it
    /// silently starts a random one): every cell 1..=`colors`, each colour at
    /// least twice, some move on the initial board, and the game not over after
    /// the stored clicks.
    pub fn validate(&self, colors: u8) -> Result<(), String> {
        let mut count = [0usize; 5];
        for &v in self.initial.iter().flatten() {
            if v == 0 || v > colors {
                return Err(format!("cell value {v} outside 1..={colors}"));
            }
            count[v as usize] += 1;
        }
        if let Some(c) = (1..=colors).find(|&c| count[c as usize] < 2) {
            return Err(format!("colour {c} appears fewer than twice"));
        }
        if is_over(&self.initial) {
            return Err("the initial board has no move".into());
        }
        let r = self.replay()?;
        if is_over(&r.board) {
            return Err("the game is over after the stored clicks".into());
        }
        Ok(())
    }

    /// The numbers of a saved-game value in order: the initial board cells,
    /// the history index (0), then the clicks as (column, row) pairs. Used to
    /// compare with what `gsettings get` prints.
    pub fn numbers(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.initial.iter().flatten().map(|&c| c as u64).collect();
        v.push(0);
        for &(c, r) in &self.clicks {
            v.push(c as u64);
            v.push(r as u64);
        }
        v
    }

    /// The GVariant text for `gsettings set org.gnome.SwellFoop saved-game`.
    pub fn to_gvariant(&self) -> String {
        let rows: Vec<String> = self
            .initial
            .iter()
            .map(|r| {
                let cells: Vec<String> = r.iter().map(|c| c.to_string()).collect();
                format!("[{}]", cells.join(","))
            })
            .collect();
        let clicks: Vec<String> = self
            .clicks
            .iter()
            .map(|(c, r)| format!("({c},{r})"))
            .collect();
        format!("([{}], 0, [{}])", rows.join(","), clicks.join(","))
    }

    /// Replays the clicks with Swell Foop's rules: a group is 2+ orthogonally
    /// connected cells of one colour; removed cells are filled from above;
    /// emptied columns close up to the left; a group of n scores (n-2)^2, and
    /// clearing the whole board adds 1000. Fails on a click that is not a move.
    pub fn replay(&self) -> Result<Replay, String> {
        let mut board = self.initial.clone();
        let mut score = 0u64;
        for &(c, r) in &self.clicks {
            let n = remove_group(&mut board, r as usize, c as usize)
                .ok_or_else(|| format!("click ({c},{r}) is not a move"))?;
            score += (n.saturating_sub(2) * n.saturating_sub(2)) as u64;
        }
        if board.iter().all(|r| r.iter().all(|&v| v == 0)) {
            score += 1000;
        }
        Ok(Replay { board, score })
    }

    /// Appends clicks chosen by a simple deterministic rule (the largest group,
    /// top-left first on ties) until `n` clicks are stored or no move is left.
    pub fn play_greedy(&mut self, n: usize) -> Result<(), String> {
        for _ in 0..n {
            let board = self.replay()?.board;
            let Some((r, c)) = largest_group(&board) else {
                break;
            };
            self.clicks.push((c as u8, r as u8));
        }
        Ok(())
    }
}

/// The cells of the group at (r, c), or empty if the cell is empty.
fn group_at(board: &[Vec<u8>], r: usize, c: usize) -> Vec<(usize, usize)> {
    let colour = board[r][c];
    if colour == 0 {
        return Vec::new();
    }
    let rows = board.len();
    let cols = board[0].len();
    let mut seen = vec![vec![false; cols]; rows];
    let mut stack = vec![(r, c)];
    let mut out = Vec::new();
    seen[r][c] = true;
    while let Some((y, x)) = stack.pop() {
        out.push((y, x));
        let mut nb = Vec::with_capacity(4);
        if y > 0 {
            nb.push((y - 1, x));
        }
        if y + 1 < rows {
            nb.push((y + 1, x));
        }
        if x > 0 {
            nb.push((y, x - 1));
        }
        if x + 1 < cols {
            nb.push((y, x + 1));
        }
        for (ny, nx) in nb {
            if !seen[ny][nx] && board[ny][nx] == colour {
                seen[ny][nx] = true;
                stack.push((ny, nx));
            }
        }
    }
    out
}

/// Removes the group at (r, c) if it has 2+ cells; returns its size.
fn remove_group(board: &mut [Vec<u8>], r: usize, c: usize) -> Option<usize> {
    if r >= board.len() || c >= board.first().map(Vec::len).unwrap_or(0) {
        return None;
    }
    let g = group_at(board, r, c);
    if g.len() < 2 {
        return None;
    }
    for &(y, x) in &g {
        board[y][x] = 0;
    }
    let rows = board.len();
    let cols = board[0].len();
    // Gravity, column by column, then close up empty columns to the left.
    let columns: Vec<Vec<u8>> = (0..cols)
        .map(|x| {
            board
                .iter()
                .map(|row| row[x])
                .filter(|&v| v != 0)
                .collect::<Vec<u8>>()
        })
        .filter(|col| !col.is_empty())
        .collect();
    for (y, row) in board.iter_mut().enumerate() {
        for (x, cell) in row.iter_mut().enumerate() {
            let col = columns.get(x).map(Vec::as_slice).unwrap_or(&[]);
            let pad = rows - col.len();
            *cell = if y < pad { 0 } else { col[y - pad] };
        }
    }
    Some(g.len())
}

/// The top-left cell of the largest group of 2+ cells, if any.
fn largest_group(board: &[Vec<u8>]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, (usize, usize))> = None;
    for r in 0..board.len() {
        for c in 0..board[r].len() {
            let g = group_at(board, r, c);
            if g.len() >= 2 && best.map(|(n, _)| g.len() > n).unwrap_or(true) {
                best = Some((g.len(), (r, c)));
            }
        }
    }
    best.map(|(_, at)| at)
}

/// Board text in the crate format: `/`-joined rows, digits, `.` for empty.
pub fn board_text(board: &[Vec<u8>]) -> String {
    board
        .iter()
        .map(|r| {
            r.iter()
                .map(|&v| if v == 0 { '.' } else { (b'0' + v) as char })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// True when no group of 2+ cells is left.
pub fn is_over(board: &[Vec<u8>]) -> bool {
    largest_group(board).is_none()
}

/// Saves `img` as a PNG with the strongest compression the `image` crate has.
pub fn save_png_small(img: &RgbImage, path: &Path) -> Result<(), String> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    use image::ImageEncoder;
    let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let enc = PngEncoder::new_with_quality(
        std::io::BufWriter::new(file),
        CompressionType::Best,
        FilterType::Adaptive,
    );
    enc.write_image(
        img.as_raw(),
        img.width(),
        img.height(),
        image::ExtendedColorType::Rgb8,
    )
    .map_err(|e| format!("{}: {e}", path.display()))
}

/// The integers (decimal or `0x` hex) in a printed GVariant, in order, after
/// its leading `@type` annotation.
pub fn gvariant_numbers(text: &str) -> Vec<u64> {
    let body = match text.strip_prefix('@') {
        Some(rest) => rest.split_once(' ').map(|(_, b)| b).unwrap_or(""),
        None => text,
    };
    let mut out = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let start = i;
            if bytes[i] == b'0' && bytes.get(i + 1) == Some(&b'x') {
                i += 2;
                let s = i;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    i += 1;
                }
                out.push(u64::from_str_radix(&body[s..i], 16).unwrap_or(u64::MAX));
            } else {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                out.push(body[start..i].parse().unwrap_or(u64::MAX));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// A board position in window pixels: the centre of cell (row, col) of a
/// Swell Foop window `win_w` pixels wide (cells are 50 px; the board is
/// centred horizontally and starts 50 px below the window top).
pub fn cell_centre_in_window(win_w: u32, cols: usize, row: usize, col: usize) -> (i32, i32) {
    let x0 = (win_w as i32 - cols as i32 * 50) / 2;
    (x0 + col as i32 * 50 + 25, 50 + row as i32 * 50 + 25)
}

/// A child process in its own group, killed (group and all) when dropped.
pub struct Guarded(pub Child);

impl Drop for Guarded {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(None)) {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.0.id())])
                .status();
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// Runs `cmd` with a time limit; returns (exit status, stdout, stderr).
pub fn run_with_timeout(
    mut cmd: Command,
    limit: Duration,
) -> Result<(std::process::ExitStatus, String, String), String> {
    let child = cmd
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    let mut g = Guarded(child);
    let mut out = g.0.stdout.take().ok_or("no stdout pipe")?;
    let mut err = g.0.stderr.take().ok_or("no stderr pipe")?;
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let until = Instant::now() + limit;
    let status = loop {
        match g.0.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if Instant::now() > until => {
                drop(g);
                let stderr = t_err.join().unwrap_or_default();
                return Err(format!(
                    "timed out after {limit:?}; stderr tail: {}",
                    tail(&stderr, 15)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(format!("waiting for the child: {e}")),
        }
    };
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    Ok((status, stdout, stderr))
}

pub fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
