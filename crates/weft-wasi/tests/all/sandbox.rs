//! The sandbox: a guest sees only its preopened directory. Each test tries
//! one way out — `..`, absolute paths, symlinks made by the host or by the
//! guest (nested, chained, to files and to directories), renames and hard
//! links across the boundary — and checks the errno, that no secret byte
//! reached the guest's memory, and that nothing outside the preopen was
//! changed or created.

use crate::common;

use common::errno::*;
use common::{Shim, CREAT, DIRECTORY, FOLLOW, TRUNC};
use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use weft_wasi::{FsPerms, WasiCtxBuilder};

const SECRET: &[u8] = b"TOP-SECRET-DATA";
/// The preopened directory's descriptor.
const ROOT: i32 = 3;

/// A temp dir with `outside/` (a secret file and a subdirectory) and
/// `sandbox/` (preopened as "."), with host-made symlinks inside the
/// sandbox that point out of it in every way.
struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    sandbox: PathBuf,
    outside: PathBuf,
    before: BTreeMap<PathBuf, String>,
}

impl World {
    fn new() -> World {
        let tmp = common::temp_dir();
        let root = tmp.path().to_path_buf();
        let outside = root.join("outside");
        let sandbox = root.join("sandbox");
        std::fs::create_dir_all(outside.join("deeper")).unwrap();
        std::fs::create_dir_all(sandbox.join("sub")).unwrap();
        std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
        std::fs::write(outside.join("deeper/secret2.txt"), SECRET).unwrap();
        std::fs::write(sandbox.join("inside.txt"), b"inside").unwrap();
        symlink(outside.join("secret.txt"), sandbox.join("abs_link")).unwrap();
        symlink("../outside/secret.txt", sandbox.join("rel_link")).unwrap();
        symlink("../outside", sandbox.join("dir_link")).unwrap();
        symlink("sub/nested2", sandbox.join("nested1")).unwrap();
        symlink("../../outside/secret.txt", sandbox.join("sub/nested2")).unwrap();
        symlink("nested1", sandbox.join("chain")).unwrap();
        symlink("/", sandbox.join("root_link")).unwrap();
        symlink(sandbox.join("inside.txt"), sandbox.join("abs_inside")).unwrap();
        symlink("sub/../..", sandbox.join("dotdot_link")).unwrap();
        let mut world = World {
            _tmp: tmp,
            root,
            sandbox,
            outside,
            before: BTreeMap::new(),
        };
        world.before = world.snapshot();
        world
    }

    fn shim(&self) -> Shim {
        self.shim_with(FsPerms::ReadWrite)
    }

    fn shim_with(&self, perms: FsPerms) -> Shim {
        Shim::new(WasiCtxBuilder::new().preopened_dir(&self.sandbox, ".", perms).unwrap())
    }

    /// Everything outside the sandbox: each path with its kind, contents or
    /// link target, and modification time.
    fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        fn walk(dir: &Path, skip: &Path, out: &mut BTreeMap<PathBuf, String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path == skip {
                    continue;
                }
                let meta = std::fs::symlink_metadata(&path).unwrap();
                let mtime = meta.modified().unwrap();
                let what = if meta.is_dir() {
                    walk(&path, skip, out);
                    "dir".to_string()
                } else if meta.file_type().is_symlink() {
                    format!("link {:?}", std::fs::read_link(&path).unwrap())
                } else {
                    format!("file {:?}", std::fs::read(&path).unwrap())
                };
                out.insert(
                    path,
                    format!(
                        "{what} {mtime:?} nlink={}",
                        std::os::unix::fs::MetadataExt::nlink(&meta)
                    ),
                );
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.root, &self.sandbox, &mut out);
        out
    }

    /// Nothing outside the sandbox changed and the guest never saw the
    /// secret.
    fn check(&self, shim: &Shim) {
        assert_eq!(
            self.before,
            self.snapshot(),
            "the host file system outside the preopen changed"
        );
        assert!(!shim.memory_contains(SECRET), "the guest read the secret");
    }
}

/// An escape attempt is refused with one of the errnos a sandbox gives.
#[track_caller]
fn refused<T: std::fmt::Debug>(r: Result<T, i32>, allowed: &[i32]) {
    match r {
        Ok(v) => panic!("escape succeeded: {v:?}"),
        Err(e) => assert!(allowed.contains(&e), "errno {e}, expected one of {allowed:?}"),
    }
}

#[track_caller]
fn refused_errno(e: i32, allowed: &[i32]) {
    assert!(e != 0, "escape succeeded");
    assert!(allowed.contains(&e), "errno {e}, expected one of {allowed:?}");
}

#[test]
fn inside_paths_work() {
    let w = World::new();
    let mut s = w.shim();
    let fd = s.open(ROOT, "inside.txt", 0, 0, 0).unwrap();
    assert_eq!(s.read(fd).unwrap(), b"inside");
    let fd = s.open(ROOT, "sub/../inside.txt", FOLLOW, 0, 0).unwrap();
    assert_eq!(s.read(fd).unwrap(), b"inside");
    // A symlink that stays inside is followed.
    assert_eq!(s.symlink("../inside.txt", ROOT, "sub/back"), 0);
    let fd = s.open(ROOT, "sub/back", FOLLOW, 0, 0).unwrap();
    assert_eq!(s.read(fd).unwrap(), b"inside");
    // A symlink is itself inside: stat without following works.
    assert_eq!(s.stat(ROOT, 0, "rel_link").unwrap().0, 7);
    w.check(&s);
}

#[test]
fn dotdot_is_refused() {
    let w = World::new();
    let mut s = w.shim();
    for path in [
        "..",
        "../outside/secret.txt",
        "sub/../../outside/secret.txt",
        "./../outside/secret.txt",
    ] {
        refused(s.open(ROOT, path, FOLLOW, 0, 0), &[PERM]);
        refused(s.open(ROOT, path, 0, 0, 0), &[PERM]);
    }
    refused(s.open(ROOT, "../outside/new.txt", FOLLOW, CREAT, 0), &[PERM]);
    refused(s.open(ROOT, "../outside", FOLLOW, DIRECTORY, 0), &[PERM]);
    // `..` of an opened subdirectory is outside that descriptor too.
    let sub = s.open(ROOT, "sub", FOLLOW, DIRECTORY, 0).unwrap();
    refused(s.open(sub, "../inside.txt", FOLLOW, 0, 0), &[PERM]);
    refused(s.stat(ROOT, FOLLOW, "../outside/secret.txt"), &[PERM]);
    refused(s.readlink(ROOT, "../outside"), &[PERM]);
    w.check(&s);
}

#[test]
fn absolute_paths_are_refused() {
    let w = World::new();
    let mut s = w.shim();
    let secret = w.outside.join("secret.txt");
    let inside = w.sandbox.join("inside.txt");
    for path in [secret.to_str().unwrap(), inside.to_str().unwrap(), "/etc/passwd", "/"] {
        refused(s.open(ROOT, path, FOLLOW, 0, 0), &[PERM]);
        refused(s.stat(ROOT, FOLLOW, path), &[PERM]);
    }
    refused(
        s.open(ROOT, w.outside.join("created.txt").to_str().unwrap(), FOLLOW, CREAT, 0),
        &[PERM],
    );
    refused_errno(s.mkdir(ROOT, w.outside.join("made").to_str().unwrap()), &[PERM]);
    w.check(&s);
}

#[test]
fn host_symlinks_out_are_refused() {
    let w = World::new();
    let mut s = w.shim();
    for path in [
        "abs_link",
        "rel_link",
        "dir_link/secret.txt",
        "dir_link/deeper/secret2.txt",
        "nested1",
        "sub/nested2",
        "chain",
        "root_link/etc/passwd",
        "abs_inside",
        "dotdot_link/outside/secret.txt",
    ] {
        refused(s.open(ROOT, path, FOLLOW, 0, 0), &[PERM]);
        refused(s.stat(ROOT, FOLLOW, path), &[PERM]);
    }
    // Not following the last component: the link itself cannot be opened.
    refused(s.open(ROOT, "rel_link", 0, 0, 0), &[LOOP]);
    refused(s.open(ROOT, "dir_link", FOLLOW, DIRECTORY, 0), &[PERM]);
    // Creating, writing and truncating through a link.
    refused(s.open(ROOT, "dir_link/created.txt", FOLLOW, CREAT, 0), &[PERM]);
    refused(s.open(ROOT, "rel_link", FOLLOW, CREAT | TRUNC, 0), &[PERM]);
    refused_errno(s.mkdir(ROOT, "dir_link/made"), &[PERM]);
    refused_errno(s.unlink(ROOT, "dir_link/secret.txt"), &[PERM]);
    refused_errno(s.rmdir(ROOT, "dir_link/deeper"), &[PERM]);
    refused_errno(s.set_times(ROOT, FOLLOW, "rel_link", 1, 1, 1 | 4), &[PERM]);
    refused_errno(s.set_times(ROOT, FOLLOW, "dir_link/secret.txt", 1, 1, 1 | 4), &[PERM]);
    // An absolute target is not revealed.
    refused(s.readlink(ROOT, "abs_link"), &[PERM]);
    assert_eq!(s.readlink(ROOT, "rel_link").unwrap(), "../outside/secret.txt");
    w.check(&s);
}

#[test]
fn guest_symlinks_out_are_refused() {
    let w = World::new();
    let mut s = w.shim();
    // An absolute target cannot even be created.
    refused_errno(s.symlink("/etc/passwd", ROOT, "g_abs"), &[PERM]);
    refused_errno(
        s.symlink(w.outside.join("secret.txt").to_str().unwrap(), ROOT, "g_abs2"),
        &[PERM],
    );
    // A relative one that leads out can be created, but never followed.
    assert_eq!(s.symlink("../outside/secret.txt", ROOT, "g_rel"), 0);
    assert_eq!(s.symlink("../outside", ROOT, "g_dir"), 0);
    assert_eq!(s.symlink("g_rel", ROOT, "g_chain"), 0);
    assert_eq!(s.symlink("../g_chain", ROOT, "sub/g_nested"), 0);
    assert_eq!(s.symlink("sub/g_nested", ROOT, "g_nested_chain"), 0);
    assert_eq!(s.symlink("..", ROOT, "g_up"), 0);
    for path in [
        "g_rel",
        "g_chain",
        "sub/g_nested",
        "g_nested_chain",
        "g_dir/secret.txt",
        "g_up/outside/secret.txt",
    ] {
        refused(s.open(ROOT, path, FOLLOW, 0, 0), &[PERM]);
        refused(s.stat(ROOT, FOLLOW, path), &[PERM]);
    }
    refused(s.open(ROOT, "g_dir/created.txt", FOLLOW, CREAT, 0), &[PERM]);
    refused(s.open(ROOT, "g_chain", FOLLOW, CREAT | TRUNC, 0), &[PERM]);
    refused_errno(s.mkdir(ROOT, "g_dir/made"), &[PERM]);
    refused_errno(s.unlink(ROOT, "g_dir/secret.txt"), &[PERM]);
    refused_errno(s.rename(ROOT, "inside.txt", ROOT, "g_dir/moved.txt"), &[PERM]);
    refused_errno(s.link(ROOT, 0, "inside.txt", ROOT, "g_up/outside/hard.txt"), &[PERM]);
    // A symlink in a subdirectory made through another descriptor.
    let sub = s.open(ROOT, "sub", FOLLOW, DIRECTORY, 0).unwrap();
    assert_eq!(s.symlink("..", sub, "up"), 0);
    refused(s.open(sub, "up/inside.txt", FOLLOW, 0, 0), &[PERM]);
    w.check(&s);
}

#[test]
fn renames_across_the_boundary_are_refused() {
    let w = World::new();
    let mut s = w.shim();
    refused_errno(s.rename(ROOT, "inside.txt", ROOT, "../outside/moved.txt"), &[PERM]);
    refused_errno(s.rename(ROOT, "inside.txt", ROOT, "../moved.txt"), &[PERM]);
    refused_errno(s.rename(ROOT, "../outside/secret.txt", ROOT, "stolen.txt"), &[PERM]);
    refused_errno(s.rename(ROOT, "dir_link/secret.txt", ROOT, "stolen.txt"), &[PERM]);
    refused_errno(s.rename(ROOT, "inside.txt", ROOT, "dir_link/moved.txt"), &[PERM]);
    refused_errno(s.rename(ROOT, "sub", ROOT, "../outside/sub"), &[PERM]);
    let sub = s.open(ROOT, "sub", FOLLOW, DIRECTORY, 0).unwrap();
    refused_errno(s.rename(sub, "../inside.txt", ROOT, "moved.txt"), &[PERM]);
    assert!(w.sandbox.join("inside.txt").exists());
    assert!(!w.sandbox.join("stolen.txt").exists());
    // Renaming a symlink that points out moves only the link: it still
    // leads nowhere (one level down, `../outside` is inside and missing).
    assert_eq!(s.rename(ROOT, "abs_link", ROOT, "sub/abs_link2"), 0);
    refused(s.open(ROOT, "sub/abs_link2", FOLLOW, 0, 0), &[PERM]);
    assert_eq!(s.rename(ROOT, "rel_link", ROOT, "sub/rel_link2"), 0);
    refused(s.open(ROOT, "sub/rel_link2", FOLLOW, 0, 0), &[NOENT]);
    assert_eq!(s.rename(ROOT, "sub/nested2", ROOT, "nested3"), 0);
    refused(s.open(ROOT, "nested3", FOLLOW, 0, 0), &[PERM]);
    w.check(&s);
}

#[test]
fn hard_links_across_the_boundary_are_refused() {
    let w = World::new();
    let mut s = w.shim();
    refused_errno(s.link(ROOT, 0, "inside.txt", ROOT, "../outside/hard.txt"), &[PERM]);
    refused_errno(s.link(ROOT, 0, "../outside/secret.txt", ROOT, "hard.txt"), &[PERM]);
    refused_errno(s.link(ROOT, 0, "dir_link/secret.txt", ROOT, "hard.txt"), &[PERM]);
    refused_errno(s.link(ROOT, 0, "inside.txt", ROOT, "dir_link/hard.txt"), &[PERM]);
    // Following a symlink source is not supported at all.
    refused_errno(s.link(ROOT, FOLLOW, "rel_link", ROOT, "hard.txt"), &[INVAL]);
    assert!(!w.sandbox.join("hard.txt").exists());
    w.check(&s);
}

#[test]
fn removing_outside_is_refused() {
    let w = World::new();
    let mut s = w.shim();
    refused_errno(s.unlink(ROOT, "../outside/secret.txt"), &[PERM]);
    refused_errno(s.rmdir(ROOT, "../outside/deeper"), &[PERM]);
    refused_errno(s.rmdir(ROOT, ".."), &[PERM]);
    refused_errno(s.set_times(ROOT, 0, "../outside/secret.txt", 1, 1, 1 | 4), &[PERM]);
    refused_errno(s.mkdir(ROOT, "../made"), &[PERM]);
    // Removing a symlink that points out removes the link, not its target.
    assert_eq!(s.unlink(ROOT, "rel_link"), 0);
    assert_eq!(s.unlink(ROOT, "dir_link"), 0);
    w.check(&s);
}

#[test]
fn read_only_preopen_refuses_changes() {
    let w = World::new();
    let mut s = w.shim_with(FsPerms::ReadOnly);
    let fd = s.open(ROOT, "inside.txt", FOLLOW, 0, 0).unwrap();
    assert_eq!(s.read(fd).unwrap(), b"inside");
    assert_eq!(s.write(fd, "x"), Err(BADF));
    refused(s.open(ROOT, "new.txt", FOLLOW, CREAT, 0), &[NOTCAPABLE]);
    refused(s.open(ROOT, "inside.txt", FOLLOW, TRUNC, 0), &[NOTCAPABLE]);
    refused_errno(s.mkdir(ROOT, "made"), &[NOTCAPABLE]);
    refused_errno(s.unlink(ROOT, "inside.txt"), &[NOTCAPABLE]);
    refused_errno(s.rename(ROOT, "inside.txt", ROOT, "moved.txt"), &[NOTCAPABLE]);
    refused_errno(s.symlink("inside.txt", ROOT, "l"), &[NOTCAPABLE]);
    refused_errno(s.set_times(ROOT, 0, "inside.txt", 1, 1, 1 | 4), &[NOTCAPABLE]);
    // A subdirectory inherits the restriction.
    let sub = s.open(ROOT, "sub", FOLLOW, DIRECTORY, 0).unwrap();
    refused(s.open(sub, "new.txt", FOLLOW, CREAT, 0), &[NOTCAPABLE]);
    assert_eq!(std::fs::read(w.sandbox.join("inside.txt")).unwrap(), b"inside");
    assert!(!w.sandbox.join("new.txt").exists() && !w.sandbox.join("made").exists());
    w.check(&s);
}

#[test]
fn errors_inside_the_sandbox() {
    let w = World::new();
    let mut s = w.shim();
    refused(s.open(ROOT, "missing.txt", FOLLOW, 0, 0), &[NOENT]);
    refused(s.open(ROOT, "inside.txt", FOLLOW, CREAT | common::EXCL, 0), &[EXIST]);
    refused(s.open(ROOT, "inside.txt", FOLLOW, DIRECTORY, 0), &[NOTDIR]);
    refused(s.open(ROOT, "inside.txt/x", FOLLOW, 0, 0), &[NOTDIR]);
    refused(s.open(99, "inside.txt", FOLLOW, 0, 0), &[BADF]);
    let file = s.open(ROOT, "inside.txt", FOLLOW, 0, 0).unwrap();
    refused(s.open(file, "x", FOLLOW, 0, 0), &[NOTDIR]);
    assert_eq!(s.mkdir(ROOT, "sub"), EXIST);
    assert_eq!(s.rmdir(ROOT, "inside.txt"), NOTDIR);
    std::fs::write(w.sandbox.join("sub/f"), b"").unwrap();
    assert_eq!(s.rmdir(ROOT, "sub"), NOTEMPTY);
    assert_eq!(s.unlink(ROOT, "sub"), ISDIR);
    assert_eq!(s.unlink(ROOT, "missing"), NOENT);
    w.check(&s);
}
