package io.pointsinbox.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * A loopback TCP proxy that a test can cut: every open connection is dropped and new ones are refused until it is
 * restored. Put in front of PostgreSQL it plays a database that becomes unreachable. It can also be frozen: the
 * connections stay open but no byte passes in either direction until it is thawed, as on a network path that
 * silently drops packets. Or the connections open now can be silenced for good while new ones pass, as when the
 * peer's node is lost and it comes back elsewhere: their bytes are dropped in both directions and the far end's
 * close never arrives; only the near end's own close still reaches the far end, so that the test need not wait for
 * the far end's own idle timeout; partitioned, not even that.
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final IntSupplier targetPort;
    private final Object gate = new Object();
    private volatile boolean frozen;
    private volatile byte[][] trap;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile ServerSocket server;

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this(targetHost, () -> targetPort);
    }

    /** A proxy whose target port is looked up at each new connection (a broker that restarts on a new port). */
    public TcpProxy(String targetHost, IntSupplier targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
        restore();
    }

    public int port() {
        return port;
    }

    /** Drops every connection and refuses new ones. */
    public synchronized void cut() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
        links.clear();
    }

    /**
     * Resets every open connection (a TCP RST to both ends, as when a peer process is killed and its host's kernel
     * answers for it); new connections pass.
     */
    public synchronized void resetOpenConnections() {
        // Every socket is set to reset before any is closed: closing one end wakes its pump, which closes the other
        // end at once, and that close must be a reset too, not an orderly FIN that the client would read as a close.
        for (Socket socket : sockets) {
            try {
                socket.setSoLinger(true, 0);
            } catch (IOException e) {
                // already closed
            }
        }
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
        links.clear();
    }

    /** Holds every byte, in both directions, until {@link #thaw()}; connections stay open. */
    public void freeze() {
        frozen = true;
    }

    /**
     * Drops every byte of the connections open now, in both directions, for good, and keeps their sockets open; the
     * connections opened afterwards pass.
     */
    public void silenceOpenConnections() {
        for (Link link : links) {
            link.silenced = true;
        }
    }

    /**
     * As {@link #silenceOpenConnections()}, and the near end's close does not reach the far end either: the far end
     * keeps its side of each connection until it gives up on it by itself, as across a network partition.
     */
    public void partitionOpenConnections() {
        for (Link link : links) {
            link.closesPass = false;
            link.silenced = true;
        }
    }

    /**
     * Silences for good (as {@link #silenceOpenConnections()}) the next connection whose client sends, in one read,
     * every one of these byte sequences; that read is dropped. Later connections pass.
     */
    public void silenceNextConnectionSending(byte[]... patterns) {
        trap = patterns;
    }

    /** Whether the connection set by {@link #silenceNextConnectionSending} has come and been silenced. */
    public synchronized boolean trapSprung() {
        return trap == null;
    }

    /** Connections accepted since the proxy was created. */
    public int acceptedConnections() {
        return accepted.get();
    }

    public void thaw() {
        synchronized (gate) {
            frozen = false;
            gate.notifyAll();
        }
    }

    private void awaitThawed() throws InterruptedException {
        synchronized (gate) {
            while (frozen) {
                gate.wait();
            }
        }
    }

    public synchronized void restore() throws IOException {
        if (server != null) {
            return;
        }
        ServerSocket listening = new ServerSocket();
        listening.setReuseAddress(true);
        listening.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
        server = listening;
        Thread acceptor = new Thread(() -> accept(listening), "tcp-proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private void accept(ServerSocket listening) {
        while (!listening.isClosed()) {
            try {
                Socket client = listening.accept();
                Socket upstream;
                try {
                    upstream = new Socket(targetHost, targetPort.getAsInt());
                } catch (IOException refused) {
                    closeQuietly(client); // the target is away: the client sees its connection closed at once
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                accepted.incrementAndGet();
                Link link = new Link();
                links.add(link);
                pump(client, upstream, link, false);
                pump(upstream, client, link, true);
            } catch (IOException e) {
                // the listening socket was closed by cut(), or the target refused: the client sees a closed socket
            }
        }
    }

    private void pump(Socket from, Socket to, Link link, boolean fromUpstream) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    awaitThawed();
                    if (!fromUpstream && trapped(buffer, read)) {
                        link.silenced = true;
                    }
                    if (link.silenced) {
                        continue;
                    }
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away: close both below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (link.silenced && (fromUpstream || !link.closesPass) && !from.isClosed()) {
                    // One end closed a silenced connection: the other never hears of it (the near end's close
                    // still reaches the far end, unless partitioned).
                    closeQuietly(from);
                    sockets.remove(from);
                } else {
                    closeQuietly(from);
                    closeQuietly(to);
                    sockets.remove(from);
                    sockets.remove(to);
                    links.remove(link);
                }
            }
        }, "tcp-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private synchronized boolean trapped(byte[] buffer, int length) {
        byte[][] patterns = trap;
        if (patterns == null) {
            return false;
        }
        for (byte[] pattern : patterns) {
            if (indexOf(buffer, length, pattern) < 0) {
                return false;
            }
        }
        trap = null;
        return true;
    }

    private static int indexOf(byte[] buffer, int length, byte[] pattern) {
        outer: for (int i = 0; i + pattern.length <= length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (buffer[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** One proxied connection. */
    private static final class Link {
        volatile boolean silenced;
        volatile boolean closesPass = true;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}
