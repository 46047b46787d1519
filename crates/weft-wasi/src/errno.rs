//! WASI errno values, the mapping from host I/O errors to them, and the
//! error type of the host functions (an errno for the guest, or a trap).

use std::io;

macro_rules! errnos {
    ($($(#[$doc:meta])* $name:ident = $value:literal,)*) => {
        /// A `wasi_snapshot_preview1` error number, as returned to the guest.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum Errno {
            $($(#[$doc])* $name = $value,)*
        }

        impl Errno {
            /// The lower-case name of the errno, as `wasi-libc` spells it
            /// without its `E` prefix (`"badf"`, `"noent"`, ...).
            pub fn name(self) -> &'static str {
                match self {
                    $(Errno::$name => stringify!($name),)*
                }
            }
        }
    };
}

errnos! {
    /// No error.
    Success = 0,
    /// Argument list too long.
    TooBig = 1,
    /// Permission denied.
    Acces = 2,
    /// Address in use.
    Addrinuse = 3,
    /// Address not available.
    Addrnotavail = 4,
    /// Address family not supported.
    Afnosupport = 5,
    /// Resource unavailable, or operation would block.
    Again = 6,
    /// Connection already in progress.
    Already = 7,
    /// Bad file descriptor.
    Badf = 8,
    /// Bad message.
    Badmsg = 9,
    /// Device or resource busy.
    Busy = 10,
    /// Operation canceled.
    Canceled = 11,
    /// No child processes.
    Child = 12,
    /// Connection aborted.
    Connaborted = 13,
    /// Connection refused.
    Connrefused = 14,
    /// Connection reset.
    Connreset = 15,
    /// Resource deadlock would occur.
    Deadlk = 16,
    /// Destination address required.
    Destaddrreq = 17,
    /// Mathematics argument out of domain of function.
    Dom = 18,
    /// Reserved.
    Dquot = 19,
    /// File exists.
    Exist = 20,
    /// Bad address.
    Fault = 21,
    /// File too large.
    Fbig = 22,
    /// Host is unreachable.
    Hostunreach = 23,
    /// Identifier removed.
    Idrm = 24,
    /// Illegal byte sequence.
    Ilseq = 25,
    /// Operation in progress.
    Inprogress = 26,
    /// Interrupted function.
    Intr = 27,
    /// Invalid argument.
    Inval = 28,
    /// I/O error.
    Io = 29,
    /// Socket is connected.
    Isconn = 30,
    /// Is a directory.
    Isdir = 31,
    /// Too many levels of symbolic links.
    Loop = 32,
    /// File descriptor value too large.
    Mfile = 33,
    /// Too many links.
    Mlink = 34,
    /// Message too large.
    Msgsize = 35,
    /// Reserved.
    Multihop = 36,
    /// Filename too long.
    Nametoolong = 37,
    /// Network is down.
    Netdown = 38,
    /// Connection aborted by network.
    Netreset = 39,
    /// Network unreachable.
    Netunreach = 40,
    /// Too many files open in system.
    Nfile = 41,
    /// No buffer space available.
    Nobufs = 42,
    /// No such device.
    Nodev = 43,
    /// No such file or directory.
    Noent = 44,
    /// Executable file format error.
    Noexec = 45,
    /// No locks available.
    Nolck = 46,
    /// Reserved.
    Nolink = 47,
    /// Not enough space.
    Nomem = 48,
    /// No message of the desired type.
    Nomsg = 49,
    /// Protocol not available.
    Noprotoopt = 50,
    /// No space left on device.
    Nospc = 51,
    /// Function not supported.
    Nosys = 52,
    /// The socket is not connected.
    Notconn = 53,
    /// Not a directory or a symbolic link to a directory.
    Notdir = 54,
    /// Directory not empty.
    Notempty = 55,
    /// State not recoverable.
    Notrecoverable = 56,
    /// Not a socket.
    Notsock = 57,
    /// Not supported, or operation not supported on socket.
    Notsup = 58,
    /// Inappropriate I/O control operation.
    Notty = 59,
    /// No such device or address.
    Nxio = 60,
    /// Value too large to be stored in data type.
    Overflow = 61,
    /// Previous owner died.
    Ownerdead = 62,
    /// Operation not permitted.
    Perm = 63,
    /// Broken pipe.
    Pipe = 64,
    /// Protocol error.
    Proto = 65,
    /// Protocol not supported.
    Protonosupport = 66,
    /// Protocol wrong type for socket.
    Prototype = 67,
    /// Result too large.
    Range = 68,
    /// Read-only file system.
    Rofs = 69,
    /// Invalid seek.
    Spipe = 70,
    /// No such process.
    Srch = 71,
    /// Reserved.
    Stale = 72,
    /// Connection timed out.
    Timedout = 73,
    /// Text file busy.
    Txtbsy = 74,
    /// Cross-device link.
    Xdev = 75,
    /// Extension: capabilities insufficient.
    Notcapable = 76,
}

impl std::fmt::Display for Errno {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (WASI errno {})", self.name(), *self as u16)
    }
}

impl std::error::Error for Errno {}

use rustix::io::Errno as H;

/// Host errno values and the WASI errno each becomes.
const HOST_ERRNOS: &[(H, Errno)] = &[
    (H::TOOBIG, Errno::TooBig),
    (H::ACCESS, Errno::Acces),
    (H::ADDRINUSE, Errno::Addrinuse),
    (H::ADDRNOTAVAIL, Errno::Addrnotavail),
    (H::AFNOSUPPORT, Errno::Afnosupport),
    (H::AGAIN, Errno::Again),
    (H::WOULDBLOCK, Errno::Again),
    (H::ALREADY, Errno::Already),
    (H::BADF, Errno::Badf),
    (H::BADMSG, Errno::Badmsg),
    (H::BUSY, Errno::Busy),
    (H::CANCELED, Errno::Canceled),
    (H::CHILD, Errno::Child),
    (H::CONNABORTED, Errno::Connaborted),
    (H::CONNREFUSED, Errno::Connrefused),
    (H::CONNRESET, Errno::Connreset),
    (H::DEADLK, Errno::Deadlk),
    (H::DESTADDRREQ, Errno::Destaddrreq),
    (H::DOM, Errno::Dom),
    (H::DQUOT, Errno::Dquot),
    (H::EXIST, Errno::Exist),
    (H::FAULT, Errno::Fault),
    (H::FBIG, Errno::Fbig),
    (H::HOSTUNREACH, Errno::Hostunreach),
    (H::IDRM, Errno::Idrm),
    (H::ILSEQ, Errno::Ilseq),
    (H::INPROGRESS, Errno::Inprogress),
    (H::INTR, Errno::Intr),
    (H::INVAL, Errno::Inval),
    (H::IO, Errno::Io),
    (H::ISCONN, Errno::Isconn),
    (H::ISDIR, Errno::Isdir),
    (H::LOOP, Errno::Loop),
    (H::MFILE, Errno::Mfile),
    (H::MLINK, Errno::Mlink),
    (H::MSGSIZE, Errno::Msgsize),
    (H::MULTIHOP, Errno::Multihop),
    (H::NAMETOOLONG, Errno::Nametoolong),
    (H::NETDOWN, Errno::Netdown),
    (H::NETRESET, Errno::Netreset),
    (H::NETUNREACH, Errno::Netunreach),
    (H::NFILE, Errno::Nfile),
    (H::NOBUFS, Errno::Nobufs),
    (H::NODEV, Errno::Nodev),
    (H::NOENT, Errno::Noent),
    (H::NOEXEC, Errno::Noexec),
    (H::NOLCK, Errno::Nolck),
    (H::NOLINK, Errno::Nolink),
    (H::NOMEM, Errno::Nomem),
    (H::NOMSG, Errno::Nomsg),
    (H::NOPROTOOPT, Errno::Noprotoopt),
    (H::NOSPC, Errno::Nospc),
    (H::NOSYS, Errno::Nosys),
    (H::NOTCONN, Errno::Notconn),
    (H::NOTDIR, Errno::Notdir),
    (H::NOTEMPTY, Errno::Notempty),
    (H::NOTRECOVERABLE, Errno::Notrecoverable),
    (H::NOTSOCK, Errno::Notsock),
    (H::NOTSUP, Errno::Notsup),
    (H::OPNOTSUPP, Errno::Notsup),
    (H::NOTTY, Errno::Notty),
    (H::NXIO, Errno::Nxio),
    (H::OVERFLOW, Errno::Overflow),
    (H::OWNERDEAD, Errno::Ownerdead),
    (H::PERM, Errno::Perm),
    (H::PIPE, Errno::Pipe),
    (H::PROTO, Errno::Proto),
    (H::PROTONOSUPPORT, Errno::Protonosupport),
    (H::PROTOTYPE, Errno::Prototype),
    (H::RANGE, Errno::Range),
    (H::ROFS, Errno::Rofs),
    (H::SPIPE, Errno::Spipe),
    (H::SRCH, Errno::Srch),
    (H::STALE, Errno::Stale),
    (H::TIMEDOUT, Errno::Timedout),
    (H::TXTBSY, Errno::Txtbsy),
    (H::XDEV, Errno::Xdev),
];

impl From<&io::Error> for Errno {
    /// The WASI errno of a host error: by its OS error number when it has
    /// one, else by its kind. cap-std reports an attempt to leave a
    /// directory (`..` too far, an absolute path, a symlink pointing
    /// outside) as `PermissionDenied` without an OS number: that is `perm`.
    fn from(err: &io::Error) -> Errno {
        if err.raw_os_error().is_some() {
            if let Some(host) = H::from_io_error(err) {
                if let Some((_, wasi)) = HOST_ERRNOS.iter().find(|(h, _)| *h == host) {
                    return *wasi;
                }
            }
            return Errno::Io;
        }
        use io::ErrorKind as K;
        match err.kind() {
            K::NotFound => Errno::Noent,
            K::PermissionDenied => Errno::Perm,
            K::AlreadyExists => Errno::Exist,
            K::InvalidInput => Errno::Inval,
            K::InvalidData => Errno::Ilseq,
            K::WouldBlock => Errno::Again,
            K::Interrupted => Errno::Intr,
            K::Unsupported => Errno::Notsup,
            K::OutOfMemory => Errno::Nomem,
            K::BrokenPipe => Errno::Pipe,
            K::ConnectionRefused => Errno::Connrefused,
            K::ConnectionReset => Errno::Connreset,
            K::ConnectionAborted => Errno::Connaborted,
            K::NotConnected => Errno::Notconn,
            K::AddrInUse => Errno::Addrinuse,
            K::AddrNotAvailable => Errno::Addrnotavail,
            K::TimedOut => Errno::Timedout,
            K::IsADirectory => Errno::Isdir,
            K::NotADirectory => Errno::Notdir,
            K::DirectoryNotEmpty => Errno::Notempty,
            K::FileTooLarge => Errno::Fbig,
            K::StorageFull => Errno::Nospc,
            K::ReadOnlyFilesystem => Errno::Rofs,
            K::InvalidFilename => Errno::Inval,
            K::TooManyLinks => Errno::Mlink,
            _ => Errno::Io,
        }
    }
}

impl From<io::Error> for Errno {
    fn from(err: io::Error) -> Errno {
        Errno::from(&err)
    }
}

/// Why a WASI function did not succeed: an errno for the guest, or a trap
/// (`proc_exit`, or a host failure that must stop the guest).
#[derive(Debug)]
pub(crate) enum Error {
    /// Returned to the guest as the function's result.
    Errno(Errno),
    /// Unwinds the guest; the embedder sees this error from its call.
    Trap(anyhow::Error),
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Error {
        Error::Errno(e)
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::Errno(Errno::from(&e))
    }
}

impl From<rustix::io::Errno> for Error {
    fn from(e: rustix::io::Errno) -> Error {
        Error::from(io::Error::from(e))
    }
}

/// The result of a WASI function's implementation.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;
