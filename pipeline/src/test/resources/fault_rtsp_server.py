#!/usr/bin/python3
"""The RTSP server of the camera fault tests (faults/CameraNetworkFaultsTest): GStreamer's gst-rtsp-server serving
H.264 files at rtsp://ADDRESS:PORT/test over TCP and UDP, in real time, one media per client (not shared).

Usage: fault_rtsp_server.py ADDRESS PORT FILE [FILE...]. The first session plays the first FILE, the second the
second, and so on; later sessions play the last (a faulty stream for the first client, a clean one after it
reconnects). .mp4 goes through qtdemux, .ts through tsdemux (MPEG-TS carries a change of resolution mid-stream).

Prints READY once listening, then "PLAY <epoch ms> <session> <file>" when a session's media starts playing: the
test's clock for where the stream is (which second of the file is on the wire)."""
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

Gst.init(None)
address, port, files = sys.argv[1], sys.argv[2], sys.argv[3:]


def launch(path):
    demux = "tsdemux" if path.endswith(".ts") else "qtdemux"
    return "( filesrc location=%s ! %s ! h264parse ! rtph264pay name=pay0 pt=96 config-interval=1 )" % (path, demux)


server = GstRtspServer.RTSPServer()
server.set_address(address)
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory()
factory.set_launch(launch(files[0]))
factory.set_shared(False)
sessions = [0]


def configured(_factory, media):
    n = sessions[0]
    sessions[0] += 1
    path = files[min(n, len(files) - 1)]
    factory.set_launch(launch(files[min(n + 1, len(files) - 1)]))  # what the next client gets
    played = [False]

    def state(_media, s):
        if s == int(Gst.State.PLAYING) and not played[0]:
            played[0] = True
            print("PLAY %d %d %s" % (int(time.time() * 1000), n, path), flush=True)

    media.connect("new-state", state)


factory.connect("media-configure", configured)
server.get_mount_points().add_factory("/test", factory)
if server.attach(None) == 0:
    print("cannot listen on %s:%s" % (address, port), flush=True)
    sys.exit(1)
print("READY", flush=True)
GLib.MainLoop().run()
