/** The fields the page's search looks in, where a table has them; the sync writes them into the search index, the page searches them. */
export const SEARCHED = ['name', 'ip', 'dns', 'description', 'vip', 'host_alias', 'hypervisor_name', 'server_name', 'server_names', 'instances.listen_address', 'instances.host_alias', 'dbconn_server', 'dbconn_url', 'dbconn_db', 'dbconn_user'] as const;
