/**
 * Word lists the generator draws from. Names deliberately mix case and non-ASCII letters so
 * that case-insensitive filters and UTF-8 handling get exercised by the default data.
 */

/** The fixed operating-system tree, in pre-order; `parent` is an index into this list. */
export const OS_TREE: readonly { name: string; codename: string; parent: number | null }[] = [
  { name: 'Linux', codename: '', parent: null },
  { name: 'Debian', codename: '', parent: 0 },
  { name: 'Debian 11', codename: 'bullseye', parent: 1 },
  { name: 'Debian 12', codename: 'bookworm', parent: 1 },
  { name: 'Ubuntu', codename: '', parent: 0 },
  { name: 'Ubuntu 20.04 LTS', codename: 'focal', parent: 4 },
  { name: 'Ubuntu 22.04 LTS', codename: 'jammy', parent: 4 },
  { name: 'Ubuntu 24.04 LTS', codename: 'noble', parent: 4 },
  { name: 'Red Hat Enterprise Linux', codename: '', parent: 0 },
  { name: 'RHEL 8', codename: 'Ootpa', parent: 8 },
  { name: 'RHEL 9', codename: 'Plow', parent: 8 },
  { name: 'SUSE Linux Enterprise Server', codename: '', parent: 0 },
  { name: 'SLES 15 SP5', codename: '', parent: 11 },
  { name: 'Windows Server', codename: '', parent: null },
  { name: 'Windows Server 2016', codename: 'Redstone 1', parent: 13 },
  { name: 'Windows Server 2019', codename: 'Redstone 5', parent: 13 },
  { name: 'Windows Server 2022', codename: 'Iron', parent: 13 },
  { name: 'AIX', codename: '', parent: null },
  { name: 'AIX 7.2', codename: '', parent: 17 },
  { name: 'AIX 7.3', codename: '', parent: 17 },
  { name: 'Solaris', codename: '', parent: null },
  { name: 'Solaris 11.4', codename: '', parent: 20 },
  { name: 'FreeBSD', codename: '', parent: null },
  { name: 'FreeBSD 13.3', codename: '', parent: 22 },
  { name: 'FreeBSD 14.1', codename: '', parent: 22 },
];

/** Architectures per root system; `null` (unknown) is added separately. */
export const ARCH_BY_FAMILY: Readonly<Record<string, readonly string[]>> = {
  Linux: ['x86_64', 'x86_64', 'x86_64', 'x86_64', 'aarch64', 'ppc64le'],
  'Windows Server': ['x86_64'],
  AIX: ['ppc64'],
  Solaris: ['sparc64', 'x86_64'],
  FreeBSD: ['x86_64', 'aarch64'],
};

export const PROCESSORS: Readonly<Record<string, readonly { reference: string; ghz: number }[]>> = {
  x86_64: [
    { reference: 'Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz', ghz: 3 },
    { reference: 'Intel(R) Xeon(R) Silver 4214 CPU @ 2.20GHz', ghz: 2.2 },
    { reference: 'AMD EPYC 7763 64-Core Processor', ghz: 2.45 },
    { reference: 'AMD EPYC 9354 32-Core Processor', ghz: 3.25 },
  ],
  aarch64: [
    { reference: 'Ampere Altra Q80-30', ghz: 3 },
    { reference: 'Neoverse-V1', ghz: 2.6 },
  ],
  ppc64le: [{ reference: 'POWER9 (architected), altivec supported', ghz: 3.8 }],
  ppc64: [{ reference: 'PowerPC_POWER10', ghz: 3.9 }],
  sparc64: [{ reference: 'SPARC-M8', ghz: 5.06 }],
};

export const PHYSICAL_MODELS: readonly { manufacturer: string; model: string }[] = [
  { manufacturer: 'Dell Inc.', model: 'PowerEdge R740' },
  { manufacturer: 'Dell Inc.', model: 'PowerEdge R650xs' },
  { manufacturer: 'HPE', model: 'ProLiant DL380 Gen10' },
  { manufacturer: 'Lenovo', model: 'ThinkSystem SR650' },
  { manufacturer: 'FUJITSU', model: 'PRIMERGY RX2540 M5' },
  { manufacturer: 'Supermicro', model: 'SYS-2029U-TR4' },
  { manufacturer: 'IBM', model: 'Power System S922' },
];

export const VIRTUAL_MODELS: readonly { manufacturer: string; model: string; hypervisor: string }[] = [
  { manufacturer: 'VMware, Inc.', model: 'VMware Virtual Platform', hypervisor: 'esx' },
  { manufacturer: 'QEMU', model: 'Standard PC (Q35 + ICH9, 2009)', hypervisor: 'kvm' },
  { manufacturer: 'Microsoft Corporation', model: 'Virtual Machine', hypervisor: 'hyperv' },
];

export const CITIES = ['par', 'PAR', 'Lyon', 'Genève', 'München', 'Köln', 'straße', 'Tōkyō', '日本', 'ZÜRICH', 'oslo', 'Kraków', 'São-Paulo', 'Nice'] as const;
export const ROLES = ['web', 'db', 'app', 'batch', 'Proxy', 'LDAP', 'mail', 'build'] as const;

export const MEMORY_GB = [0.5, 2, 4, 7.5, 8, 15.6, 16, 31.25, 32, 64, 128, 256, 512] as const;

export const APP_NAMES = [
  'Gestion des congés',
  'Fakturierung Süd',
  '人事システム',
  'CRM',
  'billing-API',
  'Portail Fournisseurs',
  'Lagerverwaltung',
  'Intranet RH',
  'Export Comptable',
  'Données Clients',
  'Ticketing',
  'Straßenkarten',
  'mobile-backend',
  'Reporting BI',
] as const;

export const APP_PURPOSES = [
  'Suivi des demandes et validations',
  'Rechnungsstellung für die Region Süd',
  '社員情報の管理',
  'Customer relationship management',
  'Nightly exports to the accounting system',
  'Portal for "external" partners',
  'Inventory & warehouse tracking',
] as const;

export const APP_OWNERS = ['Équipe Réseau', 'Plattform-Team', 'インフラ', 'ops', 'DBA', 'Finance IT'] as const;

export const APP_WORDS = ['billing', 'payroll', 'crm', 'portail', 'lager', 'intranet', 'export', 'donnees', 'ticket', 'reporting', 'Kasse', 'achats'] as const;

export const DB_KINDS = ['pgsql', 'mysql'] as const;
type DbKind = (typeof DB_KINDS)[number];

export const DB_VERSIONS: Readonly<Record<DbKind, readonly string[]>> = {
  pgsql: ['12.18', '13.14', '15.6', '16.2'],
  mysql: ['5.7.44', '8.0.36', '8.4.0'],
};

export const DB_PORTS: Readonly<Record<DbKind, readonly number[]>> = { pgsql: [5432, 5433, 5434], mysql: [3306, 3307] };

export const DB_DRIVERS: Readonly<Record<DbKind, string>> = { pgsql: 'pgsql-42.7.3.jar', mysql: 'mysql-connector-j-8.3.0.jar' };

export const SHARED_BUFFERS = ['128MB', '512MB', '1GB', '4GB', '8GB'] as const;

/** Logical database names: never integer-like, since JS would reorder integer-like object keys. */
export const SCHEMA_NAMES = ['billing', 'hr_2024', 'données', 'audit', 'sessions', 'archive_v2', 'stock', 'customers', 'Reporting', 'ledger'] as const;

export const APPSERVER_VERSIONS = ['8.5.100', '9.0.85', '9.0.91', '10.1.19'] as const;
export const RUNTIME_VERSIONS = ['1.8.0_402', '11.0.22', '17.0.10', '21.0.2'] as const;
export const RUNTIME_XMS = ['256m', '512m', '1g', '2G'] as const;
export const RUNTIME_XMX = ['1g', '2048m', '4g', '8G'] as const;

export const ENVIRONMENTS = ['production', 'staging', 'development', 'recette', 'Qualification'] as const;
export const BACKUP_POLICIES = ['daily', 'weekly', 'none'] as const;

/** Maintainers by position: maintainer id 101 is the first. */
export const MAINTAINERS = [
  'Camille Durand', 'Jonas Müller', 'Aiko Tanaka', 'Léa Fournier', 'Piotr Nowak', 'Sofia Rossi', 'Mathis Lefèvre', 'Anna Schröder',
  'Kenji Watanabe', 'Inès Moreau', 'Lukas Becker', 'Chloé Girard', 'Marta Kowalska', 'Hugo Lambert', 'Emma Wagner', 'Noé Bonnet',
  'Yuki Sato', 'Zoé Mercier', 'Felix Hoffmann', 'Jeanne Roux', 'Ola Nordmann', 'Ana Souza', 'Björn Lindqvist', 'Élodie Faure', 'Tomás Álvarez',
] as const;
