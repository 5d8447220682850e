// SPDX-License-Identifier: GPL-2.0

//! The command's errors: one line that says what went wrong and what to
//! do, as `perf probe` and `bpftool` say it; a batch the module refused
//! adds the module's own `last_error` (its line and caret) below.

/// An error the command prints before it exits with status 1; or, quiet,
/// the end of a command whose reader went away (stdout closed: `| head`),
/// which exits with status 0 and prints nothing, as ripgrep does.
#[derive(Debug)]
pub struct Error(pub String, bool);

/// What every command returns.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with this text.
    pub fn new(text: impl Into<String>) -> Self {
        Error(text.into(), false)
    }

    /// The quiet end: stdout was closed.
    pub fn quiet() -> Self {
        Error(String::new(), true)
    }

    /// Whether this is the quiet end.
    pub fn is_quiet(&self) -> bool {
        self.1
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<crate::read::Malformed> for Error {
    fn from(m: crate::read::Malformed) -> Self {
        Error::new(m.to_string())
    }
}

/// The errno's name, as the kernel's headers spell it (`EINVAL`), for the
/// errors a control write returns.
pub fn errno_name(errno: i32) -> String {
    let name = match errno {
        libc::EPERM => "EPERM",
        libc::ENOENT => "ENOENT",
        libc::EINTR => "EINTR",
        libc::EIO => "EIO",
        libc::E2BIG => "E2BIG",
        libc::EAGAIN => "EAGAIN",
        libc::ENOMEM => "ENOMEM",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::EBUSY => "EBUSY",
        libc::EEXIST => "EEXIST",
        libc::ENODEV => "ENODEV",
        libc::EINVAL => "EINVAL",
        libc::ENOSPC => "ENOSPC",
        libc::ERANGE => "ERANGE",
        libc::ENAMETOOLONG => "ENAMETOOLONG",
        libc::EILSEQ => "EILSEQ",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ETIMEDOUT => "ETIMEDOUT",
        _ => return format!("errno {errno}"),
    };
    name.to_string()
}
