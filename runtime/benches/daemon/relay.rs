//! A bare TCP relay for the gateway bench: the least a hop can do. It runs as
//! a process of its own, as a gateway does (the bench binary run again with
//! [`RELAY_VAR`] set), and joins each connection it accepts to a new
//! connection to its target with two threads, one a direction, each a blocking
//! loop of `read` then `write` (no parsing, no event loop, `TCP_NODELAY` on
//! both sides). A way through it measures what any loopback hop between
//! processes costs on the machine, against which the gateway's and the
//! broker's hops are read.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command};

use super::common::{spawn_and_read_line, stop};

/// Set to a target address, the bench binary is a relay to it: it prints the
/// address it listens on, then relays until it is stopped.
pub const RELAY_VAR: &str = "AGENTPLEX_BENCH_RELAY_TO";

/// A relay process listening on loopback, forwarding to one target; stopped
/// on drop.
pub struct Relay {
    child: Child,
    addr: SocketAddr,
}

impl Relay {
    /// Starts a relay process to `target`, on a port the system picks.
    pub fn start(target: SocketAddr) -> Relay {
        let mut command = Command::new(std::env::current_exe().expect("the bench binary"));
        command.env(RELAY_VAR, target.to_string());
        let (child, line) = spawn_and_read_line(&mut command, "a relay");
        let addr = line.parse().expect("the relay's address");
        Relay { child, addr }
    }

    /// The relay's address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// The relay process's life: relays to `target` until it is killed.
pub fn serve(target: &str) -> ! {
    let target: SocketAddr = target.parse().expect("a relay target address");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port for the relay");
    println!("{}", listener.local_addr().expect("the relay's address"));
    std::io::stdout()
        .flush()
        .expect("the relay's address, told");
    for accepted in listener.incoming() {
        let Ok(client) = accepted else { continue };
        let Ok(upstream) = TcpStream::connect(target) else {
            continue;
        };
        join(client, upstream);
    }
    unreachable!("a listener's connections never end")
}

/// Copies between `a` and `b` both ways, a thread each, until either side
/// closes.
fn join(a: TcpStream, b: TcpStream) {
    for stream in [&a, &b] {
        stream
            .set_nodelay(true)
            .expect("TCP_NODELAY on a relayed socket");
    }
    let (a2, b2) = (
        a.try_clone().expect("a relayed socket"),
        b.try_clone().expect("a relayed socket"),
    );
    std::thread::spawn(move || pump(a, b));
    std::thread::spawn(move || pump(b2, a2));
}

/// Writes what `from` reads to `to`, as it comes, until `from` ends.
fn pump(mut from: TcpStream, mut to: TcpStream) {
    let mut buffer = vec![0u8; 64 << 10];
    while let Ok(read) = from.read(&mut buffer) {
        if read == 0 || to.write_all(&buffer[..read]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
