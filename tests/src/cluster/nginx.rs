//! nginx in front of the nodes: its own configuration, pid, logs and temporary files in a
//! directory of the test's, round-robin over keep-alive upstream connections.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use super::node::PATIENCE;

/// Where nginx is looked for.
const NGINX: [&str; 3] = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"];

/// The nginx executable, or a failure that says how to get one.
#[track_caller]
pub fn nginx_program() -> PathBuf {
    let found = NGINX.iter().map(PathBuf::from).find(|p| p.exists());
    found.unwrap_or_else(|| {
        panic!(
            "nginx is not installed: run scripts/test-all.sh (it installs it) or \
             `apt-get install -y nginx`"
        )
    })
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("bound address").port()
}

/// The configuration: `daemon off`, one worker, everything under `dir`; `/mcp` proxied to
/// `upstreams` round-robin over HTTP/1.1 keep-alive connections (idle ones closed by nginx
/// before the nodes' 30 s header timeout would close them), the host header kept,
/// responses not buffered (event streams), and each response naming the upstream(s) that
/// served it in `X-Upstream`.
pub fn config(dir: &Path, port: u16, upstreams: &[SocketAddr]) -> String {
    config_routing(dir, port, upstreams, &[])
}

/// The `map` and `upstream` blocks that send a legacy session's requests to its node: the
/// recipe of `docs/deploy.md`. Each node's session ids start with `<name>.`
/// (`--node-name`); a request whose `Mcp-Session-Id` names a node goes to that node's
/// upstream, whose other nodes are `backup`s, so a session whose node is gone reaches a node
/// that answers 404 (the client then opens a new session); every other request goes
/// round-robin to `snodo`.
pub fn session_routing(nodes: &[(&str, SocketAddr)]) -> String {
    let mut text = String::from("    map $http_mcp_session_id $snodo_upstream {\n");
    for (name, _) in nodes {
        text += &format!(
            "        \"~^{name}\\.\" snodo_{};\n",
            name.replace('-', "_")
        );
    }
    text += "        default snodo;\n    }\n";
    for (name, addr) in nodes {
        text += &format!("    upstream snodo_{} {{\n", name.replace('-', "_"));
        text += &format!("        server {addr} max_fails=1 fail_timeout=2s;\n");
        for (_, other) in nodes.iter().filter(|(n, _)| n != name) {
            text += &format!("        server {other} backup;\n");
        }
        text += "        keepalive 16;\n    }\n";
    }
    text
}

/// [`config`], with legacy sessions routed to the `nodes` named in their ids (none: all
/// round-robin).
pub fn config_routing(
    dir: &Path,
    port: u16,
    upstreams: &[SocketAddr],
    nodes: &[(&str, SocketAddr)],
) -> String {
    let dir = dir.display();
    let servers: String = upstreams
        .iter()
        .map(|a| format!("        server {a} max_fails=1 fail_timeout=2s;\n"))
        .collect();
    let (routing, target) = if nodes.is_empty() {
        (String::new(), "snodo")
    } else {
        (session_routing(nodes), "$snodo_upstream")
    };
    format!(
        "daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
{routing}    upstream snodo {{
{servers}        keepalive 64;
        keepalive_timeout 20s;
    }}
    server {{
        listen 127.0.0.1:{port};
        location /mcp {{
            proxy_pass http://{target};
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_next_upstream error timeout;
            proxy_connect_timeout 2s;
            proxy_read_timeout 30s;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"
    )
}

/// A running nginx; stopped when dropped.
#[derive(Debug)]
pub struct Nginx {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    dir: PathBuf,
}

impl Nginx {
    /// Starts nginx with its own configuration in `dir` (which must exist) in front of
    /// `upstreams`, and waits until it accepts connections.
    #[track_caller]
    pub fn start(dir: &Path, upstreams: &[SocketAddr]) -> Nginx {
        Self::start_routing(dir, upstreams, &[])
    }

    /// [`Nginx::start`], with legacy sessions routed to the `nodes` named in their ids
    /// ([`session_routing`]).
    #[track_caller]
    pub fn start_routing(
        dir: &Path,
        upstreams: &[SocketAddr],
        nodes: &[(&str, SocketAddr)],
    ) -> Nginx {
        let program = nginx_program();
        let port = free_port();
        let conf = dir.join("nginx.conf");
        let text = config_routing(dir, port, upstreams, nodes);
        std::fs::write(&conf, text).expect("write nginx.conf");
        let child = Command::new(program)
            .arg("-p")
            .arg(dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start nginx: {e}"));
        let nginx = Nginx {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            dir: dir.to_path_buf(),
        };
        let deadline = Instant::now() + PATIENCE;
        while TcpStream::connect(nginx.addr).is_err() {
            assert!(
                Instant::now() < deadline,
                "nginx does not listen on {}:\n{}",
                nginx.addr,
                nginx.error_log()
            );
            thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    /// nginx's error log so far.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    /// A fast shutdown (`SIGTERM`), so the master takes its worker with it.
    fn drop(&mut self) {
        let pid = i32::try_from(self.child.id()).map(nix::unistd::Pid::from_raw);
        if let Ok(pid) = pid {
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        }
        let deadline = Instant::now() + PATIENCE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
